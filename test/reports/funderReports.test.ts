import { assert, layer } from "@effect/vitest"
import { type HoursReport, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, fieldOf, fieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, actor, community, makeActor } from "../fixtures/community.js"
import { fund, pay } from "../fixtures/ledger.js"
import { makeCategory, makeListing } from "../fixtures/listings.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "../fixtures/users.js"
import { makeOrganisation } from "../fixtures/volunteering.js"
import {
  erase,
  exchangeAt,
  hoursOn,
  hoursReport,
  joinedAt,
  membersReport,
  monthOf,
  shiftDays,
  socialValueReport,
  todayIn
} from "./reportsKit.js"

const REPORTS = "/api/v2/admin/reports"

/**
 * A community with this month's and last month's activity (UTC), and what falls outside the range or is no exchange:
 * 2.5 h transferred for a "Gardening" listing and 1 h for no listing (today), 3 h approved at Repair Café this month,
 * 2 h approved at Food Bank last month; not counted: grants, a pending 4 h log, 1.5 h approved two months ago and a
 * 6 h transfer a minute before the range.
 */
const activeCommunity = Effect.gen(function*() {
  const c = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 20 } })
  const today = todayIn("UTC")
  const from = `${monthOf(today, -1)}-01`
  const gardening = yield* makeCategory(c.tenant, { name: "Gardening" })
  const listing = yield* makeListing(c.other, { categoryId: gardening.id })
  yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: 2.5, listing_id: listing.id }).pipe(
    expectStatus(201)
  )
  yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: 1 }).pipe(expectStatus(201))
  yield* fund(c.adminHeaders, c.other.id, 7)
  const cafe = yield* makeOrganisation(c.admin, { name: `Repair Café ${c.tenant.id}` })
  const bank = yield* makeOrganisation(c.other, { name: `Food Bank ${c.tenant.id}` })
  yield* hoursOn(cafe, c.member, 3, `${monthOf(today)}-01`)
  yield* hoursOn(cafe, c.member, 4, `${monthOf(today)}-01`, "pending")
  yield* hoursOn(cafe, c.other, 1.5, `${monthOf(today, -2)}-10`)
  yield* hoursOn(bank, c.other, 2, `${monthOf(today, -1)}-15`)
  yield* exchangeAt(c.member, c.other, new Date(Date.parse(`${from}T00:00:00Z`) - 60_000), 6)
  return { c, today, from, cafe, bank }
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("funder reports", (it) => {
  it.effect("hours: approved volunteering + member exchanges by month, category and organisation", () =>
    Effect.gen(function*() {
      const { bank, c, cafe, from, today } = yield* activeCommunity
      const report = yield* hoursReport(c.admin, { from, to: today })
      assert.deepStrictEqual(
        report,
        {
          from,
          to: today,
          total: 8.5,
          by_month: [{ month: monthOf(today, -1), hours: 2 }, { month: monthOf(today), hours: 6.5 }],
          by_category: [
            { category: "volunteering", hours: 5 },
            { category: "Gardening", hours: 2.5 },
            { category: "uncategorised", hours: 1 }
          ],
          by_organisation: [
            { organisation_id: cafe.id, name: cafe.name, hours: 3 },
            { organisation_id: bank.id, name: bank.name, hours: 2 }
          ]
        } satisfies HoursReport
      )

      // One day earlier: the 6 h transfer just before midnight is in; months with nothing have 0.
      const wider = yield* hoursReport(c.admin, { from: shiftDays(from, -1), to: today })
      assert.deepStrictEqual([wider.total, wider.by_month[0]], [14.5, { month: monthOf(today, -2), hours: 6 }])
      // Two months back, ending last month: only the Food Bank's 2 h, the 1.5 h and the 6 h transfer.
      const lastDay = shiftDays(`${monthOf(today)}-01`, -1)
      const earlier = yield* hoursReport(c.admin, { from: `${monthOf(today, -2)}-01`, to: lastDay })
      assert.strictEqual(earlier.total, 9.5)
      assert.deepStrictEqual(earlier.by_category, [
        { category: "uncategorised", hours: 6 },
        { category: "volunteering", hours: 3.5 }
      ])
      // By default: the twelve months up to today.
      const year = yield* hoursReport(c.admin)
      assert.deepStrictEqual(
        [year.from, year.to, year.by_month.length, year.total],
        [`${monthOf(today, -11)}-01`, today, 12, 16]
      )
    }))

  it.effect("members: total, active, new in the period, by status and by month", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 5 } })
      const today = todayIn("UTC")
      yield* makeUser(c.tenant, { status: "pending", isApproved: false })
      yield* makeUser(c.tenant, { status: "suspended" })
      const veteran = yield* makeUser(c.tenant)
      yield* joinedAt(veteran, new Date("2020-01-15T12:00:00Z"))
      const gone = yield* makeUser(c.tenant)
      yield* erase(gone)
      const volunteer = yield* makeUser(c.tenant)
      const org = yield* makeOrganisation(c.admin)
      yield* hoursOn(org, volunteer, 2, today)
      yield* hoursOn(org, c.admin, 2, today, "pending")
      yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: 1 }).pipe(expectStatus(201))

      const thisMonth = yield* membersReport(c.admin, { from: `${monthOf(today)}-01`, to: today })
      assert.deepStrictEqual(thisMonth, {
        from: `${monthOf(today)}-01`,
        to: today,
        // Admin, member, other, pending, suspended, veteran, volunteer (the erased one is not a member).
        total: 7,
        // Member and other exchanged, the volunteer's hours were approved (the admin's are pending).
        active: 3,
        // Everyone who joined this month, the erased account included; not the veteran.
        new_in_period: 7,
        by_status: { active: 5, pending: 1, suspended: 1, banned: 0 },
        by_month: [{ month: monthOf(today), new_members: 7 }]
      })
      const january2020 = yield* membersReport(c.admin, { from: "2020-01-01", to: "2020-02-29" })
      assert.deepStrictEqual(january2020, {
        from: "2020-01-01",
        to: "2020-02-29",
        total: 1,
        active: 0,
        new_in_period: 1,
        by_status: { active: 1, pending: 0, suspended: 0, banned: 0 },
        by_month: [{ month: "2020-01", new_members: 1 }, { month: "2020-02", new_members: 0 }]
      })
    }))

  it.effect("social value is the hours × the hourly value the admins set; 0 EUR until then", () =>
    Effect.gen(function*() {
      const { c, from, today } = yield* activeCommunity
      const range = { from, to: today }
      assert.deepStrictEqual(yield* socialValueReport(c.admin, range), {
        hours: 8.5,
        hourly_value: 0,
        currency: "EUR",
        value: 0,
        from,
        to: today
      })
      const set = yield* c.admin.client.adminFunderReports.updateSocialValueConfig({
        payload: { hourly_value: 12.35, currency: "GBP" }
      }).pipe(expectOk)
      assert.deepStrictEqual(set.data, { hourly_value: 12.35, currency: "GBP" })
      assert.deepStrictEqual(yield* socialValueReport(c.admin, range), {
        hours: 8.5,
        hourly_value: 12.35,
        currency: "GBP",
        value: 104.98, // 8.5 × 12.35 = 104.975, rounded to cents
        from,
        to: today
      })
      // A partial PUT keeps the other key.
      const usd = yield* c.admin.client.adminFunderReports.updateSocialValueConfig({ payload: { currency: "USD" } })
        .pipe(expectOk)
      assert.deepStrictEqual(usd.data, { hourly_value: 12.35, currency: "USD" })
      assert.strictEqual((yield* socialValueReport(c.admin, range)).currency, "USD")

      // Another community keeps its own setting and its own hours.
      const other = yield* community({ signIn: "token" })
      assert.deepStrictEqual(
        yield* Effect.map(socialValueReport(other.admin, range), (r) => [r.hours, r.hourly_value, r.currency, r.value]),
        [0, 0, "EUR", 0]
      )
      // The write is in the activity log.
      const log = yield* c.admin.client.adminActivity.log({ urlParams: {} }).pipe(expectOk)
      assert.isTrue(log.data.some((entry) => entry.action === "reports.social-value.updated"))
    }))

  it.effect("bad dates and bad settings are 422 naming the field", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", timezone: "UTC" })
      const today = todayIn("UTC")
      const cases: ReadonlyArray<readonly [{ from?: string; to?: string }, string]> = [
        [{ from: "2024-03-02", to: "2024-03-01" }, "to"],
        [{ from: "2014-01-01", to: "2024-01-01" }, "to"], // 121 months
        [{ from: shiftDays(today, 1) }, "from"] // after today, where `to` defaults
      ]
      for (const [urlParams, field] of cases) {
        const failure = yield* c.admin.client.adminFunderReports.hours({ urlParams }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(failure.fields, [field], JSON.stringify(urlParams))
        const members = yield* c.admin.client.adminFunderReports.members({ urlParams }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        const value = yield* c.admin.client.adminFunderReports.socialValue({ urlParams }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        const file = yield* c.admin.client.adminFunderReports.export({ path: { type: "hours" }, urlParams }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual([members.fields, value.fields, file.fields], [[field], [field], [field]])
      }
      // 120 months is the most.
      assert.strictEqual((yield* hoursReport(c.admin, { from: "2014-02-01", to: "2024-01-31" })).by_month.length, 120)
      // Dates the contract cannot send: raw.
      for (
        const [path, query, field] of [
          ["hours", "from=2024-02-30", "from"],
          ["members", "to=yesterday", "to"],
          ["social-value", "from=2024-1-01", "from"]
        ]
      ) {
        const res = yield* rawRequest("GET", `${REPORTS}/${path}?${query}`, { headers: c.adminHeaders })
        assert.deepStrictEqual([res.status, codeOf(res.body), fieldOf(res.body)], [422, "VALIDATION_ERROR", field])
      }
      // Settings: out of range, too precise, not a currency, unknown keys.
      const config = `${REPORTS}/social-value/config`
      for (
        const [body, fields] of [
          [{ hourly_value: -1 }, ["hourly_value"]],
          [{ hourly_value: 10000.01 }, ["hourly_value"]],
          [{ hourly_value: 1.234 }, ["hourly_value"]],
          [{ hourly_value: "12" }, ["hourly_value"]],
          [{ currency: "eur" }, ["currency"]],
          [{ currency: "ABC" }, ["currency"]],
          [{ currency: "EURO" }, ["currency"]],
          [{ hourly_value: 5, currency: "GBP", extra: true }, ["extra"]]
        ] as const
      ) {
        const res = yield* rawRequest("PUT", config, { headers: c.adminHeaders, body: JSON.stringify(body) })
        assert.deepStrictEqual([res.status, codeOf(res.body), fieldsOf(res.body)], [422, "VALIDATION_ERROR", fields])
      }
      // Nothing was stored; the bounds themselves are fine.
      assert.strictEqual((yield* socialValueReport(c.admin)).currency, "EUR")
      for (const hourly_value of [0, 10000]) {
        yield* c.admin.client.adminFunderReports.updateSocialValueConfig({ payload: { hourly_value } }).pipe(expectOk)
      }
    }))

  it.effect("only admins and platform super-admins: no token is 401; members, brokers, coordinators 403", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const staff = yield* Effect.all([
        makeActor(c.tenant, { role: "broker" }, "token"),
        makeActor(c.tenant, { role: "coordinator" }, "token")
      ])
      const calls = (who: Actor): ReadonlyArray<Effect.Effect<unknown, unknown>> => [
        who.client.adminFunderReports.hours({ urlParams: {} }),
        who.client.adminFunderReports.members({ urlParams: {} }),
        who.client.adminFunderReports.socialValue({ urlParams: {} }),
        who.client.adminFunderReports.updateSocialValueConfig({ payload: { hourly_value: 1 } }),
        who.client.adminFunderReports.exportTypes(),
        who.client.adminFunderReports.export({ path: { type: "members" }, urlParams: {} })
      ]
      for (const who of [c.member, ...staff]) {
        for (const call of calls(who)) yield* call.pipe(expectError(403, "FORBIDDEN"))
      }
      for (const call of calls({ ...c.admin, client: c.visitor.client })) {
        yield* call.pipe(expectError(401, "AUTH_REQUIRED"))
      }
      // The setting was not changed by any of them.
      assert.strictEqual((yield* socialValueReport(c.admin)).hourly_value, 0)

      const superAdmin = yield* actor(yield* makeSuperAdmin())
      const visiting = { ...superAdmin, client: yield* apiClient(yield* authHeaders(superAdmin, c.tenant)) }
      assert.strictEqual((yield* membersReport(visiting)).total, 5)
    }))
})
