import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Tenant, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { dataOf } from "../../fixtures/bodies.js"
import { type ApiClient, expectError, expectOk } from "../../fixtures/client.js"
import { community as communityOf } from "../../fixtures/community.js"
import { makeEvent, outboxOf, rawCall, type TestEvent } from "../../fixtures/events.js"
import { balanceOf, fund, verifyLedger } from "../../fixtures/ledger.js"
import { makeTenant } from "../../fixtures/tenants.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { makeUser, type TestUser } from "../../fixtures/users.js"

const MINUTE_IN_HOURS = 1 / 60

const EVENTS = "/api/v2/events"

const checkIn = (client: ApiClient, event: TestEvent, attendee: { readonly id: number }) =>
  client.eventRsvp.checkIn({ path: { id: event.id, attendeeId: UserId.make(attendee.id) } })

const checkedIn = (client: ApiClient, event: TestEvent, attendee: { readonly id: number }) =>
  Effect.map(checkIn(client, event, attendee).pipe(expectOk), (res) => res.data)

/** The shared community, no starting balance, the organiser (`member`) funded with `hours`, `members` more. */
const community = (hours: number, members = 3) =>
  communityOf({ settings: { starting_balance: 0 }, fund: { member: hours }, members, signIn: "token" })

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

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event check-in", (it) => {
  describe("paying attendance", () => {
    it.effect("the organiser checks in a going member: attended, 2 h paid organiser → attendee, CheckedIn", () =>
      Effect.gen(function*() {
        const { admin, members: [mia], member: organiser, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.25, hours: 2 })
        yield* giveRsvp(event, mia!, "going")
        // Raw: the exact body on the wire.
        const res = yield* rawCall("POST", `${EVENTS}/${event.id}/attendees/${mia!.id}/check-in`, organiser.headers)
        assert.strictEqual(res.status, 200, res.text)
        const result = dataOf<{ transaction_id: number | null }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            event_id: event.id,
            attendee_id: mia!.id,
            status: "attended",
            credited_hours: 2,
            transaction_id: result.transaction_id,
            already_checked_in: false
          },
          meta: {}
        })
        assert.isNumber(result.transaction_id)
        assert.strictEqual(yield* balanceOf(organiser.headers), 3)
        assert.strictEqual(yield* balanceOf(mia!.headers), 2)
        const row = yield* rsvpRow(event, mia!)
        assert.strictEqual(row!.status, "attended")
        assert.instanceOf(row!.checked_in_at, Date)
        assert.strictEqual(Number(row!.checkin_transaction_id), result.transaction_id)
        assert.deepStrictEqual(
          (yield* checkinTransactions(tenant)).map((
            t
          ) => [Number(t.id), t.amount, Number(t.sender_id), Number(t.recipient_id)]),
          [[result.transaction_id!, "2.00", organiser.id, mia!.id]]
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "CheckedIn"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: mia!.id,
          hours: 2,
          transaction_id: result.transaction_id,
          checked_in_by: organiser.id
        }])
        // Raw: `checked_in_at` as the wire writes it.
        const roster = yield* rawCall("GET", `${EVENTS}/${event.id}/attendees`, admin.headers)
        const attendees = dataOf<Array<{ user: { id: number }; status: string; checked_in_at: string | null }>>(
          roster.body
        )
        assert.deepStrictEqual(attendees.map((a) => [a.user.id, a.status]), [[mia!.id, "attended"]])
        assert.match(attendees[0]!.checked_in_at!, /Z$/)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("a second check-in → 200 already_checked_in, the same transaction, no second transfer", () =>
      Effect.gen(function*() {
        const { admin, members: [mia], member: organiser, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -1, hours: 1.5 })
        yield* giveRsvp(event, mia!, "going")
        const first = yield* checkedIn(organiser.client, event, mia!)
        const again = yield* checkedIn(organiser.client, event, mia!)
        const byAdmin = yield* checkedIn(admin.client, event, mia!)
        for (const repeat of [again, byAdmin]) {
          assert.deepStrictEqual(repeat, { ...first, already_checked_in: true })
        }
        assert.strictEqual(first.credited_hours, 1.5)
        assert.lengthOf(yield* checkinTransactions(tenant), 1)
        assert.lengthOf(yield* outboxOf(tenant, "CheckedIn"), 1)
        assert.strictEqual(yield* balanceOf(mia!.headers), 1.5)
        assert.strictEqual(yield* balanceOf(organiser.headers), 3.5)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("check-ins of one attendee racing from organiser and admin pay once", () =>
      Effect.gen(function*() {
        const { admin, members, member: organiser, tenant } = yield* community(10, 3)
        const event = yield* makeEvent(organiser, { startsInHours: -1, hours: 1 })
        for (const m of members) yield* giveRsvp(event, m, "going")
        const results = yield* Effect.all(
          members.flatMap((m) => [
            checkedIn(organiser.client, event, m),
            checkedIn(admin.client, event, m),
            checkedIn(organiser.client, event, m)
          ]),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => !r.already_checked_in).length, 3)
        assert.lengthOf(yield* checkinTransactions(tenant), 3)
        assert.strictEqual(yield* balanceOf(organiser.headers), 7)
        for (const m of members) assert.strictEqual(yield* balanceOf(m.headers), 1)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("credit = duration clamped to [0.5, 24] h; 0.5 without an end time; interested and invited count", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], member: organiser, tenant } = yield* community(40)
        const long = yield* makeEvent(organiser, { startsInHours: -1, hours: 30 })
        const short = yield* makeEvent(organiser, { startsInHours: -0.1, hours: 0.25 })
        const open = yield* makeEvent(organiser, { startsInHours: -2, hours: null })
        yield* giveRsvp(long, mia!, "going")
        yield* giveRsvp(short, noah!, "interested")
        yield* giveRsvp(open, olle!, "invited")
        assert.strictEqual((yield* checkedIn(organiser.client, long, mia!)).credited_hours, 24)
        assert.strictEqual((yield* checkedIn(organiser.client, short, noah!)).credited_hours, 0.5)
        assert.strictEqual((yield* checkedIn(organiser.client, open, olle!)).credited_hours, 0.5)
        assert.strictEqual(yield* balanceOf(organiser.headers), 15)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))
  })

  describe("refusals", () => {
    it.effect("the organiser cannot pay: 422 INSUFFICIENT_BALANCE and nothing changes; once funded it works", () =>
      Effect.gen(function*() {
        const { admin, members: [mia], member: organiser, tenant } = yield* community(1)
        const event = yield* makeEvent(organiser, { startsInHours: -0.5, hours: 2 })
        yield* giveRsvp(event, mia!, "going")
        yield* checkIn(organiser.client, event, mia!).pipe(expectError(422, "INSUFFICIENT_BALANCE"))
        assert.deepStrictEqual(yield* rsvpRow(event, mia!), {
          status: "going",
          checked_in_at: null,
          checkin_transaction_id: null
        })
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
        assert.deepStrictEqual(yield* outboxOf(tenant, "CheckedIn"), [])
        assert.strictEqual(yield* balanceOf(organiser.headers), 1)
        assert.strictEqual(yield* balanceOf(mia!.headers), 0)
        yield* fund(admin.headers, organiser.id, 1)
        const paid = yield* checkedIn(organiser.client, event, mia!)
        assert.deepInclude(paid, { credited_hours: 2, already_checked_in: false })
        assert.strictEqual(yield* balanceOf(organiser.headers), 0)
        assert.isTrue((yield* verifyLedger(tenant.id)).ok)
      }))

    it.effect("window edges: opens 30 min before start, closes 24 h after end (or start without an end)", () =>
      Effect.gen(function*() {
        const { members, member: organiser } = yield* community(20, 6)
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
          const attendee = members[i]!
          yield* giveRsvp(event, attendee, "going")
          const call = checkIn(organiser.client, event, attendee)
          if (open) yield* call.pipe(expectOk)
          else yield* call.pipe(expectError(422, "CHECKIN_WINDOW_CLOSED"))
          assert.strictEqual((yield* rsvpRow(event, attendee))!.status, open ? "attended" : "going", label)
        }
      }))

    it.effect("no RSVP, or a refusal, → 422 NOT_ATTENDING; so do the organiser and strangers", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], member: organiser, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(event, noah!, "not_going")
        yield* giveRsvp(event, olle!, "declined")
        const stranger = yield* makeUser(yield* makeTenant())
        for (const attendee of [mia!, noah!, olle!, organiser, stranger, { id: 999_999_999 }]) {
          yield* checkIn(organiser.client, event, attendee).pipe(expectError(422, "NOT_ATTENDING"))
        }
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
      }))

    it.effect("a cancelled event → 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { members: [mia], member: organiser } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1, status: "cancelled" })
        yield* giveRsvp(event, mia!, "going")
        yield* checkIn(organiser.client, event, mia!).pipe(expectError(409, "EVENT_CANCELLED"))
        assert.strictEqual((yield* rsvpRow(event, mia!))!.status, "going")
      }))
  })

  describe("who may check in", () => {
    it.effect("a community admin may; a plain member (attending or not) → 403 FORBIDDEN, nothing paid", () =>
      Effect.gen(function*() {
        const { admin, members: [mia, noah], member: organiser, tenant } = yield* community(5)
        const event = yield* makeEvent(organiser, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(event, mia!, "going")
        yield* giveRsvp(event, noah!, "going")
        yield* checkIn(mia!.client, event, mia!).pipe(expectError(403, "FORBIDDEN"))
        yield* checkIn(noah!.client, event, mia!).pipe(expectError(403, "FORBIDDEN"))
        assert.lengthOf(yield* checkinTransactions(tenant), 0)
        const byAdmin = yield* checkedIn(admin.client, event, mia!)
        assert.deepInclude(byAdmin, { status: "attended", credited_hours: 1, already_checked_in: false })
        assert.strictEqual((yield* outboxOf(tenant, "CheckedIn"))[0]!.checked_in_by, admin.id)
      }))

    it.effect("another community's event → 404 for its admins and organisers", () =>
      Effect.gen(function*() {
        const home = yield* community(5)
        const away = yield* community(5)
        const theirs = yield* makeEvent(away.member, { startsInHours: -0.2, hours: 1 })
        yield* giveRsvp(theirs, away.members[0]!, "going")
        for (const actor of [home.admin, home.member]) {
          yield* checkIn(actor.client, theirs, away.members[0]!).pipe(expectError(404, "NOT_FOUND"))
        }
        assert.strictEqual((yield* rsvpRow(theirs, away.members[0]!))!.status, "going")
        assert.lengthOf(yield* checkinTransactions(away.tenant), 0)
      }))
  })
})
