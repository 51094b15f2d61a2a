import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf } from "./fixtures/bodies.js"
import { makeEvent, type TestEvent } from "./fixtures/events.js"
import { balanceOf, fund, verifyLedger } from "./fixtures/ledger.js"
import { makeSignedInMembers, signIn } from "./fixtures/members.js"
import { makeTenant } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeAdmin, makeUser, type TestUser } from "./fixtures/users.js"

type Headers = Record<string, string>
type CheckIn = {
  event_id: number
  attendee_id: number
  status: string
  credited_hours: number
  transaction_id: number | null
  already_checked_in: boolean
}

const MINUTE_IN_HOURS = 1 / 60

const EVENTS = "/api/v2/events"

const checkIn = (headers: Headers, event: { readonly id: number }, attendee: { readonly id: number }) =>
  rawRequest("POST", `${EVENTS}/${event.id}/attendees/${attendee.id}/check-in`, { headers })

const checkedIn = (headers: Headers, event: { readonly id: number }, attendee: { readonly id: number }) =>
  Effect.map(checkIn(headers, event, attendee), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return dataOf<CheckIn>(res.body)
  })

const expectError = (res: { status: number; body: unknown; text: string }, status: number, code: string) => {
  assert.strictEqual(res.status, status, res.text)
  assert.strictEqual(codeOf(res.body), code, res.text)
}

/** A community whose organiser holds `hours` credits (granted by the admin), with signed-in members. */
const community = (hours: number, members = 3) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({ settings: { starting_balance: 0 } })
    const admin = yield* makeAdmin(tenant)
    const organiser = yield* makeUser(tenant, { firstName: "Olga", lastName: "Organiser" })
    const adminHeaders = yield* signIn(admin)
    if (hours > 0) yield* fund(adminHeaders, organiser.id, hours)
    return {
      tenant,
      admin,
      organiser,
      adminHeaders,
      organiserHeaders: yield* signIn(organiser),
      members: yield* makeSignedInMembers(tenant, members)
    }
  })

const sqlRows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

/** An RSVP written straight to the table, before the event's entity first loads its places (past events). */
const giveRsvp = (event: TestEvent, user: TestUser, status: string) =>
  sqlRows((sql) =>
    sql`INSERT INTO event_rsvps (tenant_id, event_id, user_id, status)
        VALUES (${user.tenant.id}, ${event.id}, ${user.id}, ${status})`
  )

const rsvpRow = (event: TestEvent, user: TestUser) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ status: string; checked_in_at: Date | null; checkin_transaction_id: string | null }>`
        SELECT status, checked_in_at, checkin_transaction_id FROM event_rsvps
        WHERE event_id = ${event.id} AND user_id = ${user.id}`
    ),
    (rows) => rows[0]
  )

const checkinTransactions = (tenant: Tenant) =>
  sqlRows((sql) =>
    sql<{ id: string; amount: string; sender_id: string; recipient_id: string }>`
      SELECT id, amount, sender_id, recipient_id FROM ledger_transactions
      WHERE tenant_id = ${tenant.id} AND type = 'checkin' ORDER BY id`
  )

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ payload: Record<string, unknown> }>`
        SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`
    ),
    (rows) => rows.map((r) => r.payload)
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event check-in", (it) => {
  describe("paying attendance", () => {
    it.effect("the organiser checks in a going member: attended, 2 h paid organiser → attendee, CheckedIn", () =>
      Effect.gen(function*() {
        const { adminHeaders, members: [mia], organiser, organiserHeaders, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.25, hours: 2 })
        yield* giveRsvp(event, mia!.user, "going")
        const res = yield* checkIn(organiserHeaders, event, mia!.user)
        assert.strictEqual(res.status, 200, res.text)
        const result = dataOf<CheckIn>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            event_id: event.id,
            attendee_id: mia!.user.id,
            status: "attended",
            credited_hours: 2,
            transaction_id: result.transaction_id,
            already_checked_in: false
          },
          meta: {}
        })
        assert.isNumber(result.transaction_id)
        assert.strictEqual(yield* balanceOf(organiserHeaders), 3)
        assert.strictEqual(yield* balanceOf(mia!.headers), 2)
        const row = yield* rsvpRow(event, mia!.user)
        assert.strictEqual(row!.status, "attended")
        assert.instanceOf(row!.checked_in_at, Date)
        assert.strictEqual(Number(row!.checkin_transaction_id), result.transaction_id)
        assert.deepStrictEqual(
          (yield* checkinTransactions(tenant)).map((
            t
          ) => [Number(t.id), t.amount, Number(t.sender_id), Number(t.recipient_id)]),
          [[result.transaction_id!, "2.00", organiser.id, mia!.user.id]]
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "CheckedIn"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: mia!.user.id,
          hours: 2,
          transaction_id: result.transaction_id,
          checked_in_by: organiser.id
        }])
        const roster = yield* rawRequest("GET", `${EVENTS}/${event.id}/attendees`, { headers: adminHeaders })
        const attendees = dataOf<Array<{ user: { id: number }; status: string; checked_in_at: string | null }>>(
          roster.body
        )
        assert.deepStrictEqual(attendees.map((a) => [a.user.id, a.status]), [[mia!.user.id, "attended"]])
        assert.match(attendees[0]!.checked_in_at!, /Z$/)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("a second check-in → 200 already_checked_in, the same transaction, no second transfer", () =>
      Effect.gen(function*() {
        const { adminHeaders, members: [mia], organiser, organiserHeaders, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -1, hours: 1.5 })
        yield* giveRsvp(event, mia!.user, "going")
        const first = yield* checkedIn(organiserHeaders, event, mia!.user)
        const again = yield* checkedIn(organiserHeaders, event, mia!.user)
        const byAdmin = yield* checkedIn(adminHeaders, event, mia!.user)
        for (const repeat of [again, byAdmin]) {
          assert.deepStrictEqual(repeat, { ...first, already_checked_in: true })
        }
        assert.strictEqual(first.credited_hours, 1.5)
        assert.lengthOf(yield* checkinTransactions(tenant), 1)
        assert.lengthOf(yield* outboxOf(tenant, "CheckedIn"), 1)
        assert.strictEqual(yield* balanceOf(mia!.headers), 1.5)
        assert.strictEqual(yield* balanceOf(organiserHeaders), 3.5)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("check-ins of one attendee racing from organiser and admin pay once", () =>
      Effect.gen(function*() {
        const { adminHeaders, members, organiser, organiserHeaders, tenant } = yield* community(10, 3)
        const event = yield* makeEvent(organiser, { startsInHours: -1, hours: 1 })
        for (const m of members) yield* giveRsvp(event, m.user, "going")
        const results = yield* Effect.all(
          members.flatMap((m) => [
            checkedIn(organiserHeaders, event, m.user),
            checkedIn(adminHeaders, event, m.user),
            checkedIn(organiserHeaders, event, m.user)
          ]),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => !r.already_checked_in).length, 3)
        assert.lengthOf(yield* checkinTransactions(tenant), 3)
        assert.strictEqual(yield* balanceOf(organiserHeaders), 7)
        for (const m of members) assert.strictEqual(yield* balanceOf(m.headers), 1)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("credit = duration clamped to [0.5, 24] h; 0.5 without an end time; interested and invited count", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], organiser, organiserHeaders, tenant } = yield* community(40)
        const long = yield* makeEvent(organiser, { startsInHours: -1, hours: 30 })
        const short = yield* makeEvent(organiser, { startsInHours: -0.1, hours: 0.25 })
        const open = yield* makeEvent(organiser, { startsInHours: -2, hours: null })
        yield* giveRsvp(long, mia!.user, "going")
        yield* giveRsvp(short, noah!.user, "interested")
        yield* giveRsvp(open, olle!.user, "invited")
        assert.strictEqual((yield* checkedIn(organiserHeaders, long, mia!.user)).credited_hours, 24)
        assert.strictEqual((yield* checkedIn(organiserHeaders, short, noah!.user)).credited_hours, 0.5)
        assert.strictEqual((yield* checkedIn(organiserHeaders, open, olle!.user)).credited_hours, 0.5)
        assert.strictEqual(yield* balanceOf(organiserHeaders), 15)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))
  })

  describe("refusals", () => {
    it.effect("the organiser cannot pay: 422 INSUFFICIENT_BALANCE and nothing changes; once funded it works", () =>
      Effect.gen(function*() {
        const { adminHeaders, members: [mia], organiser, organiserHeaders, tenant } = yield* community(1)
        const event = yield* makeEvent(organiser, { startsInHours: -0.5, hours: 2 })
        yield* giveRsvp(event, mia!.user, "going")
        expectError(yield* checkIn(organiserHeaders, event, mia!.user), 422, "INSUFFICIENT_BALANCE")
        assert.deepStrictEqual(yield* rsvpRow(event, mia!.user), {
          status: "going",
          checked_in_at: null,
          checkin_transaction_id: null
        })
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
        assert.deepStrictEqual(yield* outboxOf(tenant, "CheckedIn"), [])
        assert.strictEqual(yield* balanceOf(organiserHeaders), 1)
        assert.strictEqual(yield* balanceOf(mia!.headers), 0)
        yield* fund(adminHeaders, organiser.id, 1)
        const paid = yield* checkedIn(organiserHeaders, event, mia!.user)
        assert.deepInclude(paid, { credited_hours: 2, already_checked_in: false })
        assert.strictEqual(yield* balanceOf(organiserHeaders), 0)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("window edges: opens 30 min before start, closes 24 h after end (or start without an end)", () =>
      Effect.gen(function*() {
        const { members, organiser, organiserHeaders } = yield* community(20, 6)
        const cases: Array<[string, { startsInHours: number; hours: number | null }, boolean]> = [
          ["starts in 31 min", { startsInHours: 31 * MINUTE_IN_HOURS, hours: 2 }, false],
          ["starts in 29 min", { startsInHours: 29 * MINUTE_IN_HOURS, hours: 2 }, true],
          ["ended 23 h ago", { startsInHours: -25, hours: 2 }, true],
          ["ended 25 h ago", { startsInHours: -27, hours: 2 }, false],
          ["no end, started 23 h ago", { startsInHours: -23, hours: null }, true],
          ["no end, started 25 h ago", { startsInHours: -25, hours: null }, false]
        ]
        for (const [i, [label, times, open]] of cases.entries()) {
          const event = yield* makeEvent(organiser, times)
          const member = members[i]!
          yield* giveRsvp(event, member.user, "going")
          const res = yield* checkIn(organiserHeaders, event, member.user)
          if (open) assert.strictEqual(res.status, 200, `${label}: ${res.text}`)
          else expectError(res, 422, "CHECKIN_WINDOW_CLOSED")
          assert.strictEqual((yield* rsvpRow(event, member.user))!.status, open ? "attended" : "going", label)
        }
      }))

    it.effect("no RSVP, or a refusal, → 422 NOT_ATTENDING; so do the organiser and strangers", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], organiser, organiserHeaders, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(event, noah!.user, "not_going")
        yield* giveRsvp(event, olle!.user, "declined")
        const stranger = yield* makeUser(yield* makeTenant())
        for (const attendee of [mia!.user, noah!.user, olle!.user, organiser, stranger, { id: 999_999_999 }]) {
          expectError(yield* checkIn(organiserHeaders, event, attendee), 422, "NOT_ATTENDING")
        }
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
      }))

    it.effect("a cancelled event → 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser, organiserHeaders } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1, status: "cancelled" })
        yield* giveRsvp(event, mia!.user, "going")
        expectError(yield* checkIn(organiserHeaders, event, mia!.user), 409, "EVENT_CANCELLED")
        assert.strictEqual((yield* rsvpRow(event, mia!.user))!.status, "going")
      }))
  })

  describe("who may check in", () => {
    it.effect("a community admin may; a plain member (attending or not) → 403 FORBIDDEN, nothing paid", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders, members: [mia, noah], organiser, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(event, mia!.user, "going")
        yield* giveRsvp(event, noah!.user, "going")
        expectError(yield* checkIn(mia!.headers, event, mia!.user), 403, "FORBIDDEN")
        expectError(yield* checkIn(noah!.headers, event, mia!.user), 403, "FORBIDDEN")
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
        const byAdmin = yield* checkedIn(adminHeaders, event, mia!.user)
        assert.deepInclude(byAdmin, { status: "attended", credited_hours: 1, already_checked_in: false })
        assert.strictEqual((yield* outboxOf(tenant, "CheckedIn"))[0]!.checked_in_by, admin.id)
      }))

    it.effect("another community's event → 404 for its admins and organisers", () =>
      Effect.gen(function*() {
        const home = yield* community(5)
        const away = yield* community(5)
        const theirs = yield* makeEvent(away.organiser, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(theirs, away.members[0]!.user, "going")
        for (const headers of [home.adminHeaders, home.organiserHeaders]) {
          expectError(yield* checkIn(headers, theirs, away.members[0]!.user), 404, "NOT_FOUND")
        }
        assert.strictEqual((yield* rsvpRow(theirs, away.members[0]!.user))!.status, "going")
        assert.lengthOf(yield* checkinTransactions(away.tenant), 0)
      }))
  })
})
