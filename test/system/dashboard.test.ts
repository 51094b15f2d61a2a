import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type DashboardStats, type TrendDay, UserId } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { codeOf, fieldOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, actor, type Community, community, makeActor } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { makeGroup } from "../fixtures/groups.js"
import { fund, pay } from "../fixtures/ledger.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

const TRENDS = "/api/v2/admin/dashboard/trends"

const statsOf = (who: Actor) =>
  Effect.map(who.client.adminDashboard.stats({ withResponse: true }).pipe(expectStatus(200)), (res) => res.data)

const trendsOf = (who: Actor, urlParams: { readonly from?: string; readonly to?: string } = {}) =>
  Effect.map(who.client.adminDashboard.trends({ urlParams }).pipe(expectOk), (res) => res.data)

/** A fresh community's figures: its three actors, all active, and nothing else (the funding grants are no exchange). */
const FRESH: DashboardStats = {
  members: { total: 3, active: 3, pending: 0, suspended: 0 },
  listings: { active: 0, pending: 0 },
  transactions: { this_month: 0, hours_this_month: 0 },
  events: { upcoming: 0 },
  reports: { open: 0 },
  approvals: { pending: 0 }
}

const ZEROS = {
  members_joined: 0,
  listings_created: 0,
  transactions: 0,
  hours: 0,
  events_starting: 0,
  reports_opened: 0
}

/** Today (`YYYY-MM-DD`) in `timeZone`, as the clock on the wall there shows it. */
const todayIn = (timeZone: string) => new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date())

const shift = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** Somebody registers in the community (from an address of their own: registration is limited per address). */
const register = (c: Community) =>
  Effect.flatMap(apiClient({ ...c.anonymous, ...fromIp(randomIp()) }), (client) =>
    client.auth.register({
      payload: {
        email: `r-${randomBytes(4).toString("hex")}@example.org`,
        password: "long enough",
        first_name: "Reg",
        last_name: "Istered"
      }
    }).pipe(expectOk, Effect.map((res) => res.data)))

/** The member's activity of one day: a listing, a transfer to `other`, an event tomorrow and a report. */
const activity = (c: Community, hours: number) =>
  Effect.gen(function*() {
    yield* c.member.client.listings.create({ payload: { type: "offer", title: "Gardening", description: "Weeds" } })
      .pipe(expectOk)
    yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: hours }).pipe(expectStatus(201))
    yield* c.member.client.events.create({
      payload: { title: "Repair café", description: "Bring what is broken", start_time: hoursFromNow(24) }
    }).pipe(expectOk)
    yield* c.member.client.reports.create({
      payload: { target_type: "user", target_id: c.other.id, reason: "Rude in messages" }
    }).pipe(expectOk)
  })

/** An exchange written at `at` (the ledger has no way to back-date one): the ledger only ever appends rows. */
const exchangeAt = (c: Community, at: Date, amount: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO ledger_transactions
          (tenant_id, type, amount, sender_id, recipient_id, idempotency_key, request_hash, created_at)
        VALUES (${c.tenant.id}, 'transfer', ${amount}, ${c.member.id}, ${c.other.id},
                ${`test:${randomBytes(6).toString("hex")}`}, 'test', ${at})`).pipe(Effect.orDie)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin dashboard", (it) => {
  it.effect("stats move with registrations, approvals, suspensions, listings, transfers, events and reports", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 20 } })
      assert.deepStrictEqual(yield* statsOf(c.admin), FRESH)

      const registered = yield* register(c)
      assert.isTrue(registered.requires_approval)
      assert.deepStrictEqual(yield* statsOf(c.admin), {
        ...FRESH,
        members: { total: 4, active: 3, pending: 1, suspended: 0 },
        approvals: { pending: 1 }
      })
      const path = { id: registered.user.id }
      yield* c.admin.client.adminUsers.approve({ path }).pipe(expectOk)
      assert.deepStrictEqual(yield* statsOf(c.admin), { ...FRESH, members: { ...FRESH.members, total: 4, active: 4 } })
      yield* c.admin.client.adminUsers.suspend({ path }).pipe(expectOk)
      assert.deepStrictEqual((yield* statsOf(c.admin)).members, { total: 4, active: 3, pending: 0, suspended: 1 })
      // Banned members count as suspended: total is always active + pending + suspended.
      yield* c.admin.client.adminUsers.ban({ path: { id: UserId.make(c.other.id) } }).pipe(expectOk)
      assert.deepStrictEqual((yield* statsOf(c.admin)).members, { total: 4, active: 2, pending: 0, suspended: 2 })
      yield* c.admin.client.adminUsers.reactivate({ path: { id: UserId.make(c.other.id) } }).pipe(expectOk)

      yield* activity(c, 2.5)
      yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: 0.25 }).pipe(expectStatus(201))
      // A grant from the treasury is no exchange between members.
      yield* fund(c.adminHeaders, c.other.id, 7)
      assert.deepStrictEqual(yield* statsOf(c.admin), {
        members: { total: 4, active: 3, pending: 0, suspended: 1 },
        listings: { active: 1, pending: 0 },
        transactions: { this_month: 2, hours_this_month: 2.75 },
        events: { upcoming: 1 },
        reports: { open: 1 },
        approvals: { pending: 0 }
      })
    }))

  it.effect("approvals add members awaiting approval, listings awaiting moderation and groups awaiting review", () =>
    Effect.gen(function*() {
      const c = yield* community({
        signIn: "token",
        settings: { listing_moderation: true, group_approval_required: true }
      })
      const listing = yield* c.member.client.listings.create({
        payload: { type: "request", title: "A lift", description: "To the station" }
      }).pipe(expectOk)
      yield* makeGroup(c.member)
      yield* register(c)
      assert.deepStrictEqual(yield* statsOf(c.admin), {
        ...FRESH,
        members: { total: 4, active: 3, pending: 1, suspended: 0 },
        listings: { active: 0, pending: 1 },
        approvals: { pending: 3 }
      })
      yield* c.admin.client.adminListings.approve({ path: { id: listing.data.id } }).pipe(expectOk)
      const after = yield* statsOf(c.admin)
      assert.deepStrictEqual([after.listings, after.approvals], [{ active: 1, pending: 0 }, { pending: 2 }])
    }))

  it.effect("trends count each day's activity on its day and give every other day of the range zeros", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      yield* register(c)
      yield* activity(c, 1.5)
      const today = todayIn("UTC")
      const trends = yield* trendsOf(c.admin, { from: shift(today, -1), to: shift(today, 2) })
      assert.deepStrictEqual(trends, {
        from: shift(today, -1),
        to: shift(today, 2),
        days: [
          { date: shift(today, -1), ...ZEROS },
          {
            date: today,
            ...ZEROS,
            members_joined: 4,
            listings_created: 1,
            transactions: 1,
            hours: 1.5,
            reports_opened: 1
          },
          { date: shift(today, 1), ...ZEROS, events_starting: 1 },
          { date: shift(today, 2), ...ZEROS }
        ]
      })
      // By default the last 30 days, ending today.
      const recent = yield* trendsOf(c.admin)
      assert.deepStrictEqual([recent.from, recent.to, recent.days.length], [shift(today, -29), today, 30])
      assert.deepStrictEqual(recent.days.at(-1), trends.days[1])
      assert.isTrue(recent.days.slice(0, -1).every((day: TrendDay) => day.members_joined === 0 && day.hours === 0))
      // Only `to`: the 30 days ending then.
      const ending = yield* trendsOf(c.admin, { to: shift(today, -3) })
      assert.deepStrictEqual([ending.from, ending.days.length, ending.days.at(-1)], [
        shift(today, -32),
        30,
        { date: shift(today, -3), ...ZEROS }
      ])
      // The longest range is 366 days.
      assert.strictEqual((yield* trendsOf(c.admin, { from: shift(today, -365), to: today })).days.length, 366)
    }))

  it.effect("days and months are the community's time zone's", () =>
    Effect.gen(function*() {
      const east = yield* community({ signIn: "token", timezone: "Pacific/Kiritimati" }) // UTC+14
      const west = yield* community({ signIn: "token", timezone: "Pacific/Pago_Pago" }) // UTC-11
      const [eastDays, westDays] = [yield* trendsOf(east.admin), yield* trendsOf(west.admin)]
      assert.deepStrictEqual([eastDays.to, westDays.to], [todayIn("Pacific/Kiritimati"), todayIn("Pacific/Pago_Pago")])
      assert.notStrictEqual(eastDays.to, westDays.to)
      assert.strictEqual(eastDays.days.at(-1)!.members_joined, 3)
      assert.strictEqual(westDays.days.at(-1)!.members_joined, 3)

      // Around the start of this month on Kiritimati's clocks (the day before in UTC): one exchange a minute
      // before it, one a minute after.
      const zone = DateTime.zoneUnsafeMakeNamed("Pacific/Kiritimati")
      const monthStart = DateTime.startOf(DateTime.unsafeMakeZoned(new Date(), { timeZone: zone }), "month")
      const start = DateTime.toDateUtc(monthStart)
      yield* exchangeAt(east, new Date(start.getTime() - 60_000), 4)
      yield* exchangeAt(east, new Date(start.getTime() + 60_000), 1.25)
      assert.deepStrictEqual((yield* statsOf(east.admin)).transactions, { this_month: 1, hours_this_month: 1.25 })
      const first = DateTime.formatIsoDate(monthStart)
      const around = yield* trendsOf(east.admin, { from: shift(first, -1), to: first })
      assert.deepStrictEqual(around.days.map((d) => [d.date, d.transactions, d.hours]), [
        [shift(first, -1), 1, 4],
        [first, 1, 1.25]
      ])
    }))

  it.effect("a range backwards or longer than 366 days, or a date that is none, is 422 naming the parameter", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const today = todayIn("UTC")
      const cases: ReadonlyArray<readonly [{ from?: string; to?: string }, string]> = [
        [{ from: "2024-03-02", to: "2024-03-01" }, "to"],
        [{ from: "2023-01-01", to: "2024-01-02" }, "to"], // 367 days
        [{ from: shift(today, 1) }, "from"], // after today, where `to` defaults
        [{ from: shift(today, -366) }, "from"] // 367 days up to today
      ]
      for (const [urlParams, field] of cases) {
        const failure = yield* c.admin.client.adminDashboard.trends({ urlParams }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(failure.fields, [field], JSON.stringify(urlParams))
      }
      // Dates the contract cannot send: raw.
      for (const [query, field] of [["from=2024-02-30", "from"], ["to=yesterday", "to"], ["from=2024-1-01", "from"]]) {
        const res = yield* rawRequest("GET", `${TRENDS}?${query}`, { headers: c.adminHeaders })
        assert.deepStrictEqual([res.status, codeOf(res.body), fieldOf(res.body)], [422, "VALIDATION_ERROR", field])
      }
    }))

  it.effect("another community's members, listings, exchanges, events and reports are never counted", () =>
    Effect.gen(function*() {
      const mine = yield* community({ signIn: "token" })
      const theirs = yield* community({ signIn: "token", fund: { member: 5 } })
      yield* register(theirs)
      yield* activity(theirs, 2)
      yield* makeGroup(theirs.member)
      assert.deepStrictEqual(yield* statsOf(mine.admin), FRESH)
      const today = yield* trendsOf(mine.admin, { from: todayIn("UTC"), to: shift(todayIn("UTC"), 1) })
      assert.deepStrictEqual(today.days.map((d) => ({ ...d, date: "" })), [
        { date: "", ...ZEROS, members_joined: 3 },
        { date: "", ...ZEROS }
      ])
      // Their figures are theirs: the same routes answer them for their admin.
      assert.deepStrictEqual((yield* statsOf(theirs.admin)).transactions, { this_month: 1, hours_this_month: 2 })
      // My admin's token names my community: addressed to theirs, it is no session there.
      const crossing = yield* apiClient({ ...mine.adminHeaders, ...tenantHeaders(theirs.tenant) })
      yield* crossing.adminDashboard.stats().pipe(expectError(401, "AUTH_REQUIRED"))
    }))

  it.effect("only admins and platform super-admins: no token is 401; members, brokers, coordinators 403", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const staff = yield* Effect.all([
        makeActor(c.tenant, { role: "broker" }, "token"),
        makeActor(c.tenant, { role: "coordinator" }, "token")
      ])
      for (const who of [c.member, ...staff]) {
        yield* who.client.adminDashboard.stats().pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminDashboard.trends({ urlParams: {} }).pipe(expectError(403, "FORBIDDEN"))
        // The role is checked before the range.
        yield* who.client.adminDashboard.trends({ urlParams: { from: "2024-03-02", to: "2024-03-01" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
      }
      yield* c.visitor.client.adminDashboard.stats().pipe(expectError(401, "AUTH_REQUIRED"))
      yield* c.visitor.client.adminDashboard.trends({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))

      const superAdmin = yield* actor(yield* makeSuperAdmin())
      const visiting = { ...superAdmin, client: yield* apiClient(yield* authHeaders(superAdmin, c.tenant)) }
      // The broker and the coordinator are members too.
      assert.deepStrictEqual(yield* statsOf(visiting), {
        ...FRESH,
        members: { total: 5, active: 5, pending: 0, suspended: 0 }
      })
      assert.strictEqual((yield* trendsOf(visiting)).days.at(-1)!.members_joined, 5)
    }))
})
