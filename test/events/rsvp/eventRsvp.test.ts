import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { EventEntity, eventEntityId, type RsvpChoice, type RsvpCounts } from "@timebank/domain"
import { Effect } from "effect"
import { type ErrorBody } from "../../fixtures/bodies.js"
import { expectError, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import {
  answer,
  makeEvent,
  outboxOf,
  rawCall,
  rsvp,
  rsvpsOf,
  type TestEvent,
  waitlistOf
} from "../../fixtures/events.js"
import { TestApp } from "../../fixtures/TestApp.js"
import type { TestUser } from "../../fixtures/users.js"

const EVENTS = "/api/v2/events"

/** Four signed-in members besides the organiser (`member`), all signed in by token. */
const FOUR = { members: 4, signIn: "token" } as const

const sqlRun = (f: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

const addReminder = (event: TestEvent, user: TestUser, offsetMinutes: number, status = "pending") =>
  sqlRun((sql) =>
    sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, status, scheduled_for)
        VALUES (${user.tenant.id}, ${event.id}, ${user.id}, ${offsetMinutes}, 'platform', ${status},
                now() + interval '1 hour')`
  )

const remindersOf = (event: TestEvent, user: TestUser) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ offset_minutes: number; status: string }>`
        SELECT offset_minutes, status FROM event_reminders WHERE event_id = ${event.id} AND user_id = ${user.id}
        ORDER BY offset_minutes`).pipe(
      Effect.map((rows) => rows.map((r) => `${r.offset_minutes}:${r.status}`)),
      Effect.orDie
    )

const refresh = (event: TestEvent) =>
  Effect.flatMap(
    EventEntity.client,
    (client) => client(eventEntityId(event.organiser.tenant.id, event.id)).Refresh({})
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event RSVPs", (it) => {
  describe("POST /events/{id}/rsvp", () => {
    it.effect("going takes a place (200, counts), writes the RSVP and RsvpChanged once; again changes nothing", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia], tenant } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 5 })
        // Raw: the exact envelope on the wire.
        const res = yield* rawCall("POST", `${EVENTS}/${event.id}/rsvp`, mia!.headers, { status: "going" })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, {
          data: { status: "going", counts: { going: 1, interested: 0, waitlist: 0 } },
          meta: {}
        })
        assert.strictEqual((yield* rsvpsOf(event)).get(mia!.id), "going")
        const again = yield* answer(mia!.client, event, "going")
        assert.deepStrictEqual(again, { status: "going", counts: { going: 1, interested: 0, waitlist: 0 } })
        assert.deepStrictEqual(yield* outboxOf(tenant, "RsvpChanged"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: mia!.id,
          from: null,
          to: "going"
        }])
      }))

    it.effect("every answer moves to that status: going → interested → not_going → declined → going", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah], tenant } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 5 })
        yield* answer(noah!.client, event, "interested")
        const steps: Array<[RsvpChoice, RsvpCounts]> = [
          ["going", { going: 1, interested: 1, waitlist: 0 }],
          ["interested", { going: 0, interested: 2, waitlist: 0 }],
          ["not_going", { going: 0, interested: 1, waitlist: 0 }],
          ["declined", { going: 0, interested: 1, waitlist: 0 }],
          ["going", { going: 1, interested: 1, waitlist: 0 }]
        ]
        for (const [status, counts] of steps) {
          assert.deepStrictEqual(yield* answer(mia!.client, event, status), { status, counts })
          assert.strictEqual((yield* rsvpsOf(event)).get(mia!.id), status)
        }
        const changes = (yield* outboxOf(tenant, "RsvpChanged")).filter((p) => p.user_id === mia!.id)
        assert.deepStrictEqual(changes.map((p) => `${p.from}→${p.to}`), [
          "null→going",
          "going→interested",
          "interested→not_going",
          "not_going→declined",
          "declined→going"
        ])
      }))

    it.effect("not_going and declined straight away create that RSVP (no place taken)", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        assert.deepStrictEqual(yield* answer(mia!.client, event, "not_going"), {
          status: "not_going",
          counts: { going: 0, interested: 0, waitlist: 0 }
        })
        assert.strictEqual((yield* answer(noah!.client, event, "declined")).status, "declined")
        assert.strictEqual((yield* answer(noah!.client, event, "going")).status, "going")
      }))

    it.effect("going to a full event: 200 waitlisted with positions in arrival order; others still answer", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle, pia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.client, event, "going")
        assert.deepStrictEqual(yield* answer(noah!.client, event, "going"), {
          status: "waitlisted",
          waitlist_position: 1,
          counts: { going: 1, interested: 0, waitlist: 1 }
        })
        assert.deepStrictEqual(yield* answer(olle!.client, event, "going"), {
          status: "waitlisted",
          waitlist_position: 2,
          counts: { going: 1, interested: 0, waitlist: 2 }
        })
        // Asking again keeps the place in the queue.
        assert.strictEqual((yield* answer(noah!.client, event, "going")).waitlist_position, 1)
        assert.strictEqual((yield* answer(pia!.client, event, "interested")).status, "interested")
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.id, olle!.id])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.id))
      }))

    it.effect("full with waitlist_enabled false → 409 EVENT_FULL and nothing written", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah] } = yield* community({
          ...FOUR,
          settings: { waitlist_enabled: false }
        })
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.client, event, "going")
        yield* rsvp(noah!.client, event, "going").pipe(expectError(409, "EVENT_FULL"))
        yield* noah!.client.eventRsvp.joinWaitlist({ path: { id: event.id } }).pipe(expectError(409, "EVENT_FULL"))
        assert.deepStrictEqual(yield* waitlistOf(event), [])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.id))
        assert.strictEqual((yield* answer(noah!.client, event, "interested")).status, "interested")
      }))

    it.effect("a cancelled event refuses every answer with 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { status: "cancelled" })
        for (const status of ["going", "interested", "not_going", "declined"] as const) {
          yield* rsvp(mia!.client, event, status).pipe(expectError(409, "EVENT_CANCELLED"))
        }
        assert.strictEqual((yield* rsvpsOf(event)).size, 0)
      }))

    it.effect("a past event refuses going and interested with 422 EVENT_ENDED; not_going is still recorded", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia] } = yield* community(FOUR)
        const ended = yield* makeEvent(organiser, { startsInHours: -3, hours: 2 })
        const startedNoEnd = yield* makeEvent(organiser, { startsInHours: -0.1, hours: null })
        const running = yield* makeEvent(organiser, { startsInHours: -1, hours: 2 })
        for (const event of [ended, startedNoEnd]) {
          yield* rsvp(mia!.client, event, "going").pipe(expectError(422, "EVENT_ENDED"))
          yield* rsvp(mia!.client, event, "interested").pipe(expectError(422, "EVENT_ENDED"))
        }
        assert.strictEqual((yield* answer(mia!.client, ended, "not_going")).status, "not_going")
        assert.strictEqual((yield* answer(mia!.client, running, "going")).status, "going")
      }))

    it.effect("members-only meeting: not approved → KISS_TREFFEN_MEMBERS_ONLY from the entity; approved members go", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { membersOnly: true, maxAttendees: 1 })
        // Accounts that are not approved cannot authenticate at all (decisions D4), so the entity is asked directly
        // with what the service passes from the caller's Actor.
        const entity = (yield* EventEntity.client)(eventEntityId(organiser.tenant.id, event.id))
        for (const status of ["going", "interested"] as const) {
          const refused = yield* Effect.flip(entity.Rsvp({ userId: mia!.id, isApproved: false, status }))
          assert.strictEqual(refused._tag, "MembersOnly")
        }
        assert.strictEqual((yield* answer(noah!.client, event, "going")).status, "going")
        const waitlistRefused = yield* Effect.flip(entity.JoinWaitlist({ userId: mia!.id, isApproved: false }))
        assert.strictEqual(waitlistRefused._tag, "MembersOnly")
        assert.isFalse((yield* rsvpsOf(event)).has(mia!.id))
        assert.deepStrictEqual(yield* waitlistOf(event), [])
        // Approved, the same member simply waits for a place; once approval is withdrawn they cannot act at all.
        assert.strictEqual((yield* answer(mia!.client, event, "going")).status, "waitlisted")
        yield* sqlRun((sql) => sql`UPDATE users SET is_approved = false WHERE id = ${mia!.id}`)
        yield* rsvp(mia!.client, event, "going").pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("an unknown or missing status → 422 VALIDATION_ERROR field status", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser)
        // Raw: statuses the client's schema would refuse to send.
        for (const body of [{ status: "maybe" }, { status: "attended" }, { status: "invited" }, {}, { status: 1 }]) {
          const res = yield* rawCall("POST", `${EVENTS}/${event.id}/rsvp`, mia!.headers, body)
          assert.strictEqual(res.status, 422, res.text)
          assert.strictEqual((res.body as ErrorBody).errors[0]!.code, "VALIDATION_ERROR", res.text)
          assert.deepStrictEqual((res.body as ErrorBody).errors.map((e) => e.field), ["status"], res.text)
        }
        assert.strictEqual((yield* rsvpsOf(event)).size, 0)
      }))

    it.effect("the answers of an attendee who was checked in no longer change (409 ALREADY_ATTENDED)", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser)
        yield* answer(mia!.client, event, "going")
        yield* sqlRun((sql) => sql`UPDATE event_rsvps SET status = 'attended' WHERE event_id = ${event.id}`)
        // The entity remembers places; tell it the row changed, as any write outside it must.
        yield* refresh(event)
        yield* rsvp(mia!.client, event, "not_going").pipe(expectError(409, "ALREADY_ATTENDED"))
        yield* mia!.client.eventRsvp.removeRsvp({ path: { id: event.id } }).pipe(expectError(409, "ALREADY_ATTENDED"))
        assert.strictEqual((yield* rsvpsOf(event)).get(mia!.id), "attended")
      }))
  })

  describe("promotion from the waitlist", () => {
    it.effect("a going member cancels: the first waiter becomes going, the rest move up; outbox rows", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle, pia], tenant } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const path = { id: event.id }
        yield* answer(mia!.client, event, "going")
        for (const m of [noah!, olle!, pia!]) yield* answer(m.client, event, "going")
        const res = yield* mia!.client.eventRsvp.removeRsvp({ path }).pipe(expectOk)
        assert.deepStrictEqual(res, {
          data: { removed: true, counts: { going: 1, interested: 0, waitlist: 2 } },
          meta: {}
        })
        const rsvps = yield* rsvpsOf(event)
        assert.isFalse(rsvps.has(mia!.id))
        assert.strictEqual(rsvps.get(noah!.id), "going")
        assert.deepStrictEqual(yield* waitlistOf(event), [olle!.id, pia!.id])
        assert.deepStrictEqual(
          (yield* pia!.client.eventRsvp.waitlist({ path }).pipe(expectOk)).data,
          { entries: [], my_position: 2, total: 2 }
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "WaitlistPromoted"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: noah!.id
        }])
        const changes = (yield* outboxOf(tenant, "RsvpChanged")).map((p) => [p.user_id, p.from, p.to])
        assert.deepStrictEqual(changes, [
          [mia!.id, null, "going"],
          [mia!.id, "going", null],
          [noah!.id, null, "going"]
        ])
        // Answering not_going frees the place the same way.
        yield* answer(noah!.client, event, "not_going")
        assert.strictEqual((yield* rsvpsOf(event)).get(olle!.id), "going")
        assert.deepStrictEqual(yield* waitlistOf(event), [pia!.id])
      }))

    it.effect("with waitlist_auto_promote false nobody is promoted", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle], tenant } = yield* community({
          ...FOUR,
          settings: { waitlist_auto_promote: false }
        })
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.client, event, "going")
        yield* answer(noah!.client, event, "going")
        const res = yield* mia!.client.eventRsvp.removeRsvp({ path: { id: event.id } }).pipe(expectOk)
        assert.deepStrictEqual(res.data, { removed: true, counts: { going: 0, interested: 0, waitlist: 1 } })
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.id])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.id))
        assert.deepStrictEqual(yield* outboxOf(tenant, "WaitlistPromoted"), [])
        // The free place goes to whoever asks for it.
        assert.strictEqual((yield* answer(olle!.client, event, "going")).status, "going")
      }))

    it.effect("capacity raised by the organiser's edit promotes as many waiters as new places, in order", () =>
      Effect.gen(function*() {
        const { member: organiser, members, tenant } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of members) yield* answer(m.client, event, "going")
        yield* organiser.client.events.update({ path: { id: event.id }, payload: { max_attendees: 3 } }).pipe(expectOk)
        const rsvps = yield* rsvpsOf(event)
        assert.deepStrictEqual(members.map((m) => rsvps.get(m.id) ?? null), ["going", "going", "going", null])
        assert.deepStrictEqual(yield* waitlistOf(event), [members[3]!.id])
        assert.deepStrictEqual(
          (yield* outboxOf(tenant, "WaitlistPromoted")).map((p) => p.user_id),
          [members[1]!.id, members[2]!.id]
        )
      }))

    it.effect("capacity raised in the database, then the entity's Refresh promotes from what it reads again", () =>
      Effect.gen(function*() {
        const { member: organiser, members } = yield* community({ members: 3, signIn: "token" })
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of members) yield* answer(m.client, event, "going")
        yield* sqlRun((sql) => sql`UPDATE events SET max_attendees = 2 WHERE id = ${event.id}`)
        const refreshed = yield* refresh(event)
        assert.deepStrictEqual(refreshed.promoted, [members[1]!.id])
        assert.deepStrictEqual(yield* waitlistOf(event), [members[2]!.id])
        assert.deepStrictEqual(
          yield* answer(members[2]!.client, event, "going"),
          { status: "waitlisted", waitlist_position: 1, counts: { going: 2, interested: 0, waitlist: 1 } }
        )
      }))
  })

  describe("reminders", () => {
    it.effect("not_going, declined and DELETE cancel the member's pending reminders, nobody else's", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle, pia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser)
        for (const m of [mia!, noah!, olle!, pia!]) {
          yield* answer(m.client, event, "going")
          yield* addReminder(event, m, 60)
          yield* addReminder(event, m, 1440, "sent")
        }
        yield* answer(mia!.client, event, "not_going")
        yield* answer(noah!.client, event, "declined")
        yield* olle!.client.eventRsvp.removeRsvp({ path: { id: event.id } }).pipe(expectOk)
        yield* answer(pia!.client, event, "interested")
        for (const m of [mia!, noah!, olle!]) {
          assert.deepStrictEqual(yield* remindersOf(event, m), ["60:cancelled", "1440:sent"])
        }
        assert.deepStrictEqual(yield* remindersOf(event, pia!), ["60:pending", "1440:sent"])
      }))
  })

  describe("DELETE /events/{id}/rsvp", () => {
    it.effect("removes the RSVP (removed: true); without one → 200 removed: false", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser)
        const path = { id: event.id }
        yield* answer(mia!.client, event, "interested")
        yield* answer(noah!.client, event, "going")
        const res = yield* mia!.client.eventRsvp.removeRsvp({ path }).pipe(expectOk)
        assert.deepStrictEqual(res, {
          data: { removed: true, counts: { going: 1, interested: 0, waitlist: 0 } },
          meta: {}
        })
        assert.isFalse((yield* rsvpsOf(event)).has(mia!.id))
        const again = yield* mia!.client.eventRsvp.removeRsvp({ path }).pipe(expectOk)
        assert.deepStrictEqual(again.data, { removed: false, counts: { going: 1, interested: 0, waitlist: 0 } })
      }))
  })
})
