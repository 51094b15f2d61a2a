import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { reminderIssues } from "@timebank/server"
import { Effect } from "effect"
import { errorsOf } from "./fixtures/bodies.js"
import { insertRsvp, makeEvent, type TestEvent } from "./fixtures/events.js"
import { makeSignedInMembers, signIn } from "./fixtures/members.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeUser, type TestUser } from "./fixtures/users.js"

const dataOf = <A>(body: unknown) => (body as { data: A }).data
type Headers = Record<string, string>
type Reminder = { id: number; offset_minutes: number; channel: string; status: string; scheduled_for: string }

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000
const MINUTE = 60_000

const call = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const putReminders = (headers: Headers, event: { readonly id: number }, reminders: ReadonlyArray<unknown>) =>
  call("PUT", `${EVENTS}/${event.id}/reminders`, headers, { reminders })

const getReminders = (headers: Headers, event: { readonly id: number }) =>
  call("GET", `${EVENTS}/${event.id}/reminders`, headers)

const expectError = (res: { status: number; body: unknown; text: string }, status: number, code: string) => {
  assert.strictEqual(res.status, status, res.text)
  assert.strictEqual(errorsOf(res.body)[0]!.code, code, res.text)
}

/** Sends a set that must be accepted and returns it. */
const setReminders = (headers: Headers, event: { readonly id: number }, reminders: ReadonlyArray<unknown>) =>
  Effect.map(putReminders(headers, event, reminders), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    assert.deepStrictEqual(Object.keys(res.body as object).sort(), ["data", "meta"])
    return dataOf<Array<Reminder>>(res.body)
  })

const startOf = (event: TestEvent) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ start_time: Date }>`SELECT start_time FROM events WHERE id = ${event.id}`
  ).pipe(
    Effect.map((rows) => rows[0]!.start_time),
    Effect.orDie
  )

const rowsOf = (event: TestEvent, user: TestUser) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ offset_minutes: number; status: string; channel: string; scheduled_for: Date }>`
      SELECT offset_minutes, status, channel, scheduled_for FROM event_reminders
      WHERE event_id = ${event.id} AND user_id = ${user.id} ORDER BY offset_minutes`
  ).pipe(Effect.orDie)

const sqlDo = (f: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.asVoid, Effect.orDie)

/** A community with an organiser and signed-in members, the first `going` to a fresh event (48 h ahead). */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant(overrides)
    const organiser = yield* makeUser(tenant)
    const members = yield* makeSignedInMembers(tenant, 3)
    const event = yield* makeEvent(organiser)
    yield* insertRsvp(event.id, members[0]!.user, "going")
    return { tenant, organiser, organiserHeaders: yield* signIn(organiser), members, event }
  })

describe("reminderIssues (pure)", () => {
  const start = new Date("2030-01-10T12:00:00Z")
  const now = new Date("2030-01-08T12:00:00Z") // 48 h before
  it.effect("accepts distinct offsets still to come", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        reminderIssues(
          [{ offset_minutes: 60, channel: "email" }, { offset_minutes: 1440, channel: "both" }],
          start,
          now,
          new Set()
        ),
        []
      )
    }))
  it.effect("refuses a repeated offset and one already past, each on its own field", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        reminderIssues(
          [
            { offset_minutes: 10080, channel: "email" },
            { offset_minutes: 60, channel: "email" },
            { offset_minutes: 60, channel: "platform" }
          ],
          start,
          now,
          new Set()
        ).map((i) => i.field),
        ["reminders.0.offset_minutes", "reminders.2.offset_minutes"]
      )
    }))
  it.effect("a past offset that was already sent is fine (it stays sent)", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        reminderIssues([{ offset_minutes: 10080, channel: "email" }], start, now, new Set([10080])),
        []
      )
    }))
  it.effect("an offset due exactly now is past", () =>
    Effect.sync(() => {
      const exactly = new Date(start.getTime() - 1440 * MINUTE)
      assert.strictEqual(
        reminderIssues([{ offset_minutes: 1440, channel: "email" }], start, exactly, new Set()).length,
        1
      )
    }))
})

layer(TestApp({ REMINDER_TICK: "1 day" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "event reminders",
  (it) => {
    it.effect("PUT sets the caller's reminders (start − offset, pending) and GET reads them, soonest first", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community()
        const me = members[0]!
        const start = yield* startOf(event)
        const set = yield* setReminders(me.headers, event, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 1440, channel: "both" }
        ])
        assert.deepStrictEqual(set.map((r) => Object.keys(r).sort()), [
          ["channel", "id", "offset_minutes", "scheduled_for", "status"],
          ["channel", "id", "offset_minutes", "scheduled_for", "status"]
        ])
        assert.deepStrictEqual(set.map(({ id: _id, ...rest }) => rest), [
          {
            offset_minutes: 1440,
            channel: "both",
            status: "pending",
            scheduled_for: new Date(start.getTime() - 1440 * MINUTE).toISOString()
          },
          {
            offset_minutes: 60,
            channel: "platform",
            status: "pending",
            scheduled_for: new Date(start.getTime() - 60 * MINUTE).toISOString()
          }
        ])
        assert.isTrue(set.every((r) => Number.isInteger(r.id) && r.id > 0))
        const read = yield* getReminders(me.headers, event)
        assert.strictEqual(read.status, 200, read.text)
        assert.deepStrictEqual(dataOf(read.body), set)
        // Another member's reminders are theirs alone.
        const other = yield* getReminders(members[1]!.headers, event)
        assert.deepStrictEqual(dataOf(other.body), [])
      }))

    it.effect("PUT replaces the set: kept offsets keep their id, others go, an empty list clears", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community()
        const me = members[0]!
        const first = yield* setReminders(me.headers, event, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 1440, channel: "platform" }
        ])
        const second = yield* setReminders(me.headers, event, [{ offset_minutes: 1440, channel: "email" }])
        assert.deepStrictEqual(second.map((r) => [r.offset_minutes, r.channel, r.status]), [[1440, "email", "pending"]])
        assert.strictEqual(second[0]!.id, first.find((r) => r.offset_minutes === 1440)!.id)
        assert.deepStrictEqual((yield* rowsOf(event, me.user)).map((r) => `${r.offset_minutes}:${r.channel}`), [
          "1440:email"
        ])
        // The same set again changes nothing.
        assert.deepStrictEqual(
          yield* setReminders(me.headers, event, [{ offset_minutes: 1440, channel: "email" }]),
          second
        )
        assert.deepStrictEqual(yield* setReminders(me.headers, event, []), [])
        assert.deepStrictEqual(yield* rowsOf(event, me.user), [])
      }))

    it.effect("bad sets are 422 with one entry per bad field, and store nothing", () =>
      Effect.gen(function*() {
        const { event, members, organiser } = yield* community()
        const me = members[0]!
        const repeated = yield* putReminders(me.headers, event, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 60, channel: "email" }
        ])
        expectError(repeated, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(errorsOf(repeated.body).map((e) => e.field), ["reminders.1.offset_minutes"])

        const unknown = yield* putReminders(me.headers, event, [
          { offset_minutes: 30, channel: "platform" },
          { offset_minutes: 60, channel: "pigeon" }
        ])
        expectError(unknown, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(
          errorsOf(unknown.body).map((e) => e.field).sort(),
          ["reminders.0.offset_minutes", "reminders.1.channel"]
        )
        const missing = yield* call("PUT", `${EVENTS}/${event.id}/reminders`, me.headers, {})
        expectError(missing, 422, "VALIDATION_ERROR")
        assert.strictEqual(errorsOf(missing.body)[0]!.field, "reminders")

        // The event starts in 2 hours: a reminder a day before is already past.
        const soon = yield* makeEvent(organiser, { startsInHours: 2 })
        yield* insertRsvp(soon.id, me.user, "interested")
        const past = yield* putReminders(me.headers, soon, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 1440, channel: "email" }
        ])
        expectError(past, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(errorsOf(past.body).map((e) => e.field), ["reminders.1.offset_minutes"])
        assert.deepStrictEqual(yield* rowsOf(soon, me.user), [])
        assert.deepStrictEqual(yield* rowsOf(event, me.user), [])
        // `interested` may set them as well as `going`.
        const ok = yield* setReminders(me.headers, soon, [{ offset_minutes: 60, channel: "platform" }])
        assert.strictEqual(ok.length, 1)
      }))

    it.effect("a reminder already sent stays sent when the set is sent again, even once its time has passed", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community()
        const me = members[0]!
        // A week before a 48-hour-away event: sent already (written as delivery leaves it).
        yield* sqlDo((sql) =>
          sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, status, scheduled_for, sent_at)
          SELECT tenant_id, id, ${me.user.id}, 10080, 'email', 'sent', start_time - interval '7 days', now()
          FROM events WHERE id = ${event.id}`
        )
        const set = yield* setReminders(me.headers, event, [
          { offset_minutes: 10080, channel: "platform" },
          { offset_minutes: 60, channel: "platform" }
        ])
        assert.deepStrictEqual(set.map((r) => `${r.offset_minutes}:${r.status}:${r.channel}`), [
          "10080:sent:email",
          "60:pending:platform"
        ])
        // Dropped from the set, it goes; asked for again, its time has passed.
        yield* setReminders(me.headers, event, [{ offset_minutes: 60, channel: "platform" }])
        const again = yield* putReminders(me.headers, event, [{ offset_minutes: 10080, channel: "platform" }])
        expectError(again, 422, "VALIDATION_ERROR")
      }))

    it.effect("only members going or interested may set reminders: others get 403 and nothing is stored", () =>
      Effect.gen(function*() {
        const { event, members, organiserHeaders } = yield* community()
        const [, noRsvp, notGoing] = members
        yield* insertRsvp(event.id, notGoing!.user, "not_going")
        for (const who of [noRsvp!, notGoing!]) {
          expectError(
            yield* putReminders(who.headers, event, [{ offset_minutes: 60, channel: "email" }]),
            403,
            "FORBIDDEN"
          )
          assert.deepStrictEqual(yield* rowsOf(event, who.user), [])
        }
        // The organiser without an RSVP is no exception.
        expectError(
          yield* putReminders(organiserHeaders, event, [{ offset_minutes: 60, channel: "email" }]),
          403,
          "FORBIDDEN"
        )
        // Clearing asks nothing of the caller.
        assert.deepStrictEqual(yield* setReminders(noRsvp!.headers, event, []), [])
      }))

    it.effect("unknown events, other communities' events and callers without a token", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community()
        const elsewhere = yield* community()
        const stranger = elsewhere.members[0]!
        const reminders = [{ offset_minutes: 60, channel: "email" }]
        expectError(yield* putReminders(members[0]!.headers, { id: 999_999_999 }, reminders), 404, "NOT_FOUND")
        expectError(yield* getReminders(members[0]!.headers, { id: 999_999_999 }), 404, "NOT_FOUND")
        // An event of another community does not exist here, even for a member going to one of ours.
        expectError(yield* putReminders(stranger.headers, event, reminders), 404, "NOT_FOUND")
        expectError(yield* getReminders(stranger.headers, event), 404, "NOT_FOUND")
        expectError(yield* putReminders(members[0]!.headers, elsewhere.event, reminders), 404, "NOT_FOUND")
        const anonymous = yield* putReminders(tenantHeaders(event.organiser.tenant), event, reminders)
        assert.strictEqual(anonymous.status, 401, anonymous.text)
        assert.strictEqual((yield* getReminders(tenantHeaders(event.organiser.tenant), event)).status, 401)
      }))

    it.effect("cancelled events refuse reminders (409), started ones too (422); clearing still works", () =>
      Effect.gen(function*() {
        const { members, organiser } = yield* community()
        const me = members[0]!
        const cancelled = yield* makeEvent(organiser, { status: "cancelled" })
        const started = yield* makeEvent(organiser, { startsInHours: -0.5 })
        for (const e of [cancelled, started]) yield* insertRsvp(e.id, me.user, "going")
        const reminders = [{ offset_minutes: 60, channel: "email" }]
        expectError(yield* putReminders(me.headers, cancelled, reminders), 409, "EVENT_CANCELLED")
        expectError(yield* putReminders(me.headers, started, reminders), 422, "EVENT_ENDED")
        assert.deepStrictEqual(yield* setReminders(me.headers, cancelled, []), [])
        assert.deepStrictEqual(yield* setReminders(me.headers, started, []), [])
      }))

    it.effect("403 FEATURE_DISABLED when the community has switched events off", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community({ features: { events: false } })
        expectError(yield* putReminders(members[0]!.headers, event, []), 403, "FEATURE_DISABLED")
        expectError(yield* getReminders(members[0]!.headers, event), 403, "FEATURE_DISABLED")
      }))

    it.effect("RSVP not_going or removed cancels the member's pending reminders", () =>
      Effect.gen(function*() {
        const { event, members } = yield* community()
        const [, a, b] = members
        for (const m of [a!, b!]) {
          const res = yield* call("POST", `${EVENTS}/${event.id}/rsvp`, m.headers, { status: "going" })
          assert.strictEqual(res.status, 200, res.text)
          yield* setReminders(m.headers, event, [
            { offset_minutes: 60, channel: "email" },
            { offset_minutes: 1440, channel: "platform" }
          ])
        }
        assert.strictEqual(
          (yield* call("POST", `${EVENTS}/${event.id}/rsvp`, a!.headers, { status: "not_going" })).status,
          200
        )
        assert.strictEqual((yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, b!.headers)).status, 200)
        for (const m of [a!, b!]) {
          const read = dataOf<Array<Reminder>>((yield* getReminders(m.headers, event)).body)
          assert.deepStrictEqual(read.map((r) => `${r.offset_minutes}:${r.status}`), ["1440:cancelled", "60:cancelled"])
        }
        // Going again and asking again makes them pending once more.
        assert.strictEqual(
          (yield* call("POST", `${EVENTS}/${event.id}/rsvp`, a!.headers, { status: "going" })).status,
          200
        )
        const renewed = yield* setReminders(a!.headers, event, [{ offset_minutes: 60, channel: "email" }])
        assert.deepStrictEqual(renewed.map((r) => `${r.offset_minutes}:${r.status}`), ["60:pending"])
      }))

    it.effect("moving the event's start moves pending reminders with it; sent ones keep their time", () =>
      Effect.gen(function*() {
        const { event, members, organiserHeaders } = yield* community()
        const me = members[0]!
        const set = yield* setReminders(me.headers, event, [
          { offset_minutes: 60, channel: "email" },
          { offset_minutes: 1440, channel: "email" }
        ])
        const sentAt = new Date(set.find((r) => r.offset_minutes === 1440)!.scheduled_for)
        yield* sqlDo((sql) =>
          sql`UPDATE event_reminders SET status = 'sent' WHERE event_id = ${event.id} AND offset_minutes = 1440`
        )
        const newStart = new Date(Math.floor((Date.now() + 72 * HOUR) / 1000) * 1000)
        const res = yield* call("PUT", `${EVENTS}/${event.id}`, organiserHeaders, {
          start_time: newStart.toISOString(),
          end_time: new Date(newStart.getTime() + 2 * HOUR).toISOString()
        })
        assert.strictEqual(res.status, 200, res.text)
        const rows = yield* rowsOf(event, me.user)
        assert.deepStrictEqual(rows.map((r) => [r.offset_minutes, r.status, r.scheduled_for.toISOString()]), [
          [60, "pending", new Date(newStart.getTime() - 60 * MINUTE).toISOString()],
          [1440, "sent", sentAt.toISOString()]
        ])
        // An edit that leaves the start alone leaves the reminders alone.
        const retitled = yield* call("PUT", `${EVENTS}/${event.id}`, organiserHeaders, { title: "Renamed" })
        assert.strictEqual(retitled.status, 200, retitled.text)
        assert.deepStrictEqual(yield* rowsOf(event, me.user), rows)
      }))
  }
)
