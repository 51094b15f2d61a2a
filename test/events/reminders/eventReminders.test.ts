import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import type { ReminderRequest } from "@timebank/domain"
import { reminderIssues } from "@timebank/server"
import { DateTime, Effect } from "effect"
import { dataOf, errorsOf } from "../../fixtures/bodies.js"
import { type ApiClient, expectError, expectOk } from "../../fixtures/client.js"
import { community, type CommunityOptions } from "../../fixtures/community.js"
import { answer, asJson, insertRsvp, makeEvent, rawCall, type TestEvent } from "../../fixtures/events.js"
import { TestApp } from "../../fixtures/TestApp.js"
import type { TestUser } from "../../fixtures/users.js"

type Reminder = { id: number; offset_minutes: number; channel: string; status: string; scheduled_for: string }

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000
const MINUTE = 60_000

const putReminders = (client: ApiClient, event: Pick<TestEvent, "id">, reminders: ReadonlyArray<ReminderRequest>) =>
  client.eventReminders.set({ path: { id: event.id }, payload: { reminders } })

const getReminders = (client: ApiClient, event: Pick<TestEvent, "id">) =>
  client.eventReminders.list({ path: { id: event.id } })

/** Sends a set that must be accepted and returns it. */
const setReminders = (client: ApiClient, event: Pick<TestEvent, "id">, reminders: ReadonlyArray<ReminderRequest>) =>
  Effect.map(putReminders(client, event, reminders).pipe(expectOk), (res) => res.data)

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

/** The shared community with three signed-in members, the first `going` to an event of `member` 48 h ahead. */
const withEvent = (options: CommunityOptions = {}) =>
  Effect.gen(function*() {
    const c = yield* community({ members: 3, signIn: "token", ...options })
    const event = yield* makeEvent(c.member)
    yield* insertRsvp(event.id, c.members[0]!, "going")
    return { ...c, organiser: c.member, event }
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

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "event reminders",
  (it) => {
    it.effect("PUT sets the caller's reminders (start − offset, pending) and GET reads them, soonest first", () =>
      Effect.gen(function*() {
        const { event, members } = yield* withEvent()
        const me = members[0]!
        const start = yield* startOf(event)
        // Raw: the exact keys and times on the wire.
        const res = yield* rawCall("PUT", `${EVENTS}/${event.id}/reminders`, me.headers, {
          reminders: [{ offset_minutes: 60, channel: "platform" }, { offset_minutes: 1440, channel: "both" }]
        })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(Object.keys(res.body as object).sort(), ["data", "meta"])
        const set = dataOf<Array<Reminder>>(res.body)
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
        const read = yield* getReminders(me.client, event).pipe(expectOk)
        assert.deepStrictEqual<unknown>(asJson(read.data), set)
        // Another member's reminders are theirs alone.
        assert.deepStrictEqual((yield* getReminders(members[1]!.client, event).pipe(expectOk)).data, [])
      }))

    it.effect("PUT replaces the set: kept offsets keep their id, others go, an empty list clears", () =>
      Effect.gen(function*() {
        const { event, members } = yield* withEvent()
        const me = members[0]!
        const first = yield* setReminders(me.client, event, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 1440, channel: "platform" }
        ])
        const second = yield* setReminders(me.client, event, [{ offset_minutes: 1440, channel: "email" }])
        assert.deepStrictEqual(second.map((r) => [r.offset_minutes, r.channel, r.status]), [[1440, "email", "pending"]])
        assert.strictEqual(second[0]!.id, first.find((r) => r.offset_minutes === 1440)!.id)
        assert.deepStrictEqual((yield* rowsOf(event, me)).map((r) => `${r.offset_minutes}:${r.channel}`), [
          "1440:email"
        ])
        // The same set again changes nothing.
        assert.deepStrictEqual(
          asJson(yield* setReminders(me.client, event, [{ offset_minutes: 1440, channel: "email" }])),
          asJson(second)
        )
        assert.deepStrictEqual(yield* setReminders(me.client, event, []), [])
        assert.deepStrictEqual(yield* rowsOf(event, me), [])
      }))

    it.effect("bad sets are 422 with one entry per bad field, and store nothing", () =>
      Effect.gen(function*() {
        const { event, members, organiser } = yield* withEvent()
        const me = members[0]!
        const repeated = yield* putReminders(me.client, event, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 60, channel: "email" }
        ]).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(repeated.fields, ["reminders.1.offset_minutes"])

        // Raw: an offset and a channel the client's schema would refuse to send, and no list at all.
        const unknown = yield* rawCall("PUT", `${EVENTS}/${event.id}/reminders`, me.headers, {
          reminders: [{ offset_minutes: 30, channel: "platform" }, { offset_minutes: 60, channel: "pigeon" }]
        })
        assert.strictEqual(unknown.status, 422, unknown.text)
        assert.strictEqual(errorsOf(unknown.body)[0]!.code, "VALIDATION_ERROR", unknown.text)
        assert.deepStrictEqual(
          errorsOf(unknown.body).map((e) => e.field).sort(),
          ["reminders.0.offset_minutes", "reminders.1.channel"]
        )
        const missing = yield* rawCall("PUT", `${EVENTS}/${event.id}/reminders`, me.headers, {})
        assert.strictEqual(missing.status, 422, missing.text)
        assert.strictEqual(errorsOf(missing.body)[0]!.code, "VALIDATION_ERROR", missing.text)
        assert.strictEqual(errorsOf(missing.body)[0]!.field, "reminders")

        // The event starts in 2 hours: a reminder a day before is already past.
        const soon = yield* makeEvent(organiser, { startsInHours: 2 })
        yield* insertRsvp(soon.id, me, "interested")
        const past = yield* putReminders(me.client, soon, [
          { offset_minutes: 60, channel: "platform" },
          { offset_minutes: 1440, channel: "email" }
        ]).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(past.fields, ["reminders.1.offset_minutes"])
        assert.deepStrictEqual(yield* rowsOf(soon, me), [])
        assert.deepStrictEqual(yield* rowsOf(event, me), [])
        // `interested` may set them as well as `going`.
        const ok = yield* setReminders(me.client, soon, [{ offset_minutes: 60, channel: "platform" }])
        assert.strictEqual(ok.length, 1)
      }))

    it.effect("a reminder already sent stays sent when the set is sent again, even once its time has passed", () =>
      Effect.gen(function*() {
        const { event, members } = yield* withEvent()
        const me = members[0]!
        // A week before a 48-hour-away event: sent already (written as delivery leaves it).
        yield* sqlDo((sql) =>
          sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, status, scheduled_for, sent_at)
          SELECT tenant_id, id, ${me.id}, 10080, 'email', 'sent', start_time - interval '7 days', now()
          FROM events WHERE id = ${event.id}`
        )
        const set = yield* setReminders(me.client, event, [
          { offset_minutes: 10080, channel: "platform" },
          { offset_minutes: 60, channel: "platform" }
        ])
        assert.deepStrictEqual(set.map((r) => `${r.offset_minutes}:${r.status}:${r.channel}`), [
          "10080:sent:email",
          "60:pending:platform"
        ])
        // Dropped from the set, it goes; asked for again, its time has passed.
        yield* setReminders(me.client, event, [{ offset_minutes: 60, channel: "platform" }])
        yield* putReminders(me.client, event, [{ offset_minutes: 10080, channel: "platform" }]).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
      }))

    it.effect("only members going or interested may set reminders: others get 403 and nothing is stored", () =>
      Effect.gen(function*() {
        const { event, members, organiser } = yield* withEvent()
        const [, noRsvp, notGoing] = members
        yield* insertRsvp(event.id, notGoing!, "not_going")
        for (const who of [noRsvp!, notGoing!]) {
          yield* putReminders(who.client, event, [{ offset_minutes: 60, channel: "email" }]).pipe(
            expectError(403, "FORBIDDEN")
          )
          assert.deepStrictEqual(yield* rowsOf(event, who), [])
        }
        // The organiser without an RSVP is no exception.
        yield* putReminders(organiser.client, event, [{ offset_minutes: 60, channel: "email" }]).pipe(
          expectError(403, "FORBIDDEN")
        )
        // Clearing asks nothing of the caller.
        assert.deepStrictEqual(yield* setReminders(noRsvp!.client, event, []), [])
      }))

    it.effect("unknown events, other communities' events and callers without a token", () =>
      Effect.gen(function*() {
        const { event, members, visitor } = yield* withEvent()
        const elsewhere = yield* withEvent()
        const stranger = elsewhere.members[0]!
        const reminders = [{ offset_minutes: 60, channel: "email" }] as const
        const unknown = { id: 999_999_999 as TestEvent["id"] }
        yield* putReminders(members[0]!.client, unknown, reminders).pipe(expectError(404, "NOT_FOUND"))
        yield* getReminders(members[0]!.client, unknown).pipe(expectError(404, "NOT_FOUND"))
        // An event of another community does not exist here, even for a member going to one of ours.
        yield* putReminders(stranger.client, event, reminders).pipe(expectError(404, "NOT_FOUND"))
        yield* getReminders(stranger.client, event).pipe(expectError(404, "NOT_FOUND"))
        yield* putReminders(members[0]!.client, elsewhere.event, reminders).pipe(expectError(404, "NOT_FOUND"))
        yield* putReminders(visitor.client, event, reminders).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* getReminders(visitor.client, event).pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("cancelled events refuse reminders (409), started ones too (422); clearing still works", () =>
      Effect.gen(function*() {
        const { members, organiser } = yield* withEvent()
        const me = members[0]!
        const cancelled = yield* makeEvent(organiser, { status: "cancelled" })
        const started = yield* makeEvent(organiser, { startsInHours: -0.5 })
        for (const e of [cancelled, started]) yield* insertRsvp(e.id, me, "going")
        const reminders = [{ offset_minutes: 60, channel: "email" }] as const
        yield* putReminders(me.client, cancelled, reminders).pipe(expectError(409, "EVENT_CANCELLED"))
        yield* putReminders(me.client, started, reminders).pipe(expectError(422, "EVENT_ENDED"))
        assert.deepStrictEqual(yield* setReminders(me.client, cancelled, []), [])
        assert.deepStrictEqual(yield* setReminders(me.client, started, []), [])
      }))

    it.effect("403 FEATURE_DISABLED when the community has switched events off", () =>
      Effect.gen(function*() {
        const { event, members } = yield* withEvent({ features: { events: false } })
        yield* putReminders(members[0]!.client, event, []).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* getReminders(members[0]!.client, event).pipe(expectError(403, "FEATURE_DISABLED"))
      }))

    it.effect("RSVP not_going or removed cancels the member's pending reminders", () =>
      Effect.gen(function*() {
        const { event, members } = yield* withEvent()
        const [, a, b] = members
        for (const m of [a!, b!]) {
          yield* answer(m.client, event, "going")
          yield* setReminders(m.client, event, [
            { offset_minutes: 60, channel: "email" },
            { offset_minutes: 1440, channel: "platform" }
          ])
        }
        yield* answer(a!.client, event, "not_going")
        yield* b!.client.eventRsvp.removeRsvp({ path: { id: event.id } }).pipe(expectOk)
        for (const m of [a!, b!]) {
          const read = (yield* getReminders(m.client, event).pipe(expectOk)).data
          assert.deepStrictEqual(read.map((r) => `${r.offset_minutes}:${r.status}`), ["1440:cancelled", "60:cancelled"])
        }
        // Going again and asking again makes them pending once more.
        yield* answer(a!.client, event, "going")
        const renewed = yield* setReminders(a!.client, event, [{ offset_minutes: 60, channel: "email" }])
        assert.deepStrictEqual(renewed.map((r) => `${r.offset_minutes}:${r.status}`), ["60:pending"])
      }))

    it.effect("moving the event's start moves pending reminders with it; sent ones keep their time", () =>
      Effect.gen(function*() {
        const { event, members, organiser } = yield* withEvent()
        const me = members[0]!
        const set = yield* setReminders(me.client, event, [
          { offset_minutes: 60, channel: "email" },
          { offset_minutes: 1440, channel: "email" }
        ])
        const sentAt = DateTime.toDate(set.find((r) => r.offset_minutes === 1440)!.scheduled_for)
        yield* sqlDo((sql) =>
          sql`UPDATE event_reminders SET status = 'sent' WHERE event_id = ${event.id} AND offset_minutes = 1440`
        )
        const newStart = new Date(Math.floor((Date.now() + 72 * HOUR) / 1000) * 1000)
        const path = { id: event.id }
        yield* organiser.client.events.update({
          path,
          payload: {
            start_time: DateTime.unsafeMake(newStart),
            end_time: DateTime.unsafeMake(newStart.getTime() + 2 * HOUR)
          }
        }).pipe(expectOk)
        const rows = yield* rowsOf(event, me)
        assert.deepStrictEqual(rows.map((r) => [r.offset_minutes, r.status, r.scheduled_for.toISOString()]), [
          [60, "pending", new Date(newStart.getTime() - 60 * MINUTE).toISOString()],
          [1440, "sent", sentAt.toISOString()]
        ])
        // An edit that leaves the start alone leaves the reminders alone.
        yield* organiser.client.events.update({ path, payload: { title: "Renamed" } }).pipe(expectOk)
        assert.deepStrictEqual(yield* rowsOf(event, me), rows)
      }))
  }
)
