import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { EventEntity, eventEntityId, type Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, type ErrorBody } from "./fixtures/bodies.js"
import { makeEvent, type TestEvent } from "./fixtures/events.js"
import { makeSignedInMembers, type SignedInMember, signIn } from "./fixtures/members.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeAdmin, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"

const dataOf = <A>(body: unknown) => (body as { data: A }).data
type Headers = Record<string, string>
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Counts = { going: number; interested: number; waitlist: number }
type RsvpAnswer = { status: string; waitlist_position?: number; counts: Counts }

const EVENTS = "/api/v2/events"

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const rsvp = (headers: Headers, event: { readonly id: number }, status: string) =>
  call("POST", `${EVENTS}/${event.id}/rsvp`, headers, { status })

/** Sends an RSVP that must succeed and returns its `data`. */
const answer = (headers: Headers, event: { readonly id: number }, status: string) =>
  Effect.map(rsvp(headers, event, status), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    assert.deepStrictEqual(Object.keys(res.body as object).sort(), ["data", "meta"])
    return dataOf<RsvpAnswer>(res.body)
  })

const expectError = (res: { status: number; body: unknown; text: string }, status: number, code: string) => {
  assert.strictEqual(res.status, status, res.text)
  assert.strictEqual(codeOf(res.body), code, res.text)
}

/** A community with an admin, an organiser and `members` signed-in members, plus optional tenant fields. */
const community = (overrides: Record<string, unknown> = {}, members = 4) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant(overrides)
    const admin = yield* makeAdmin(tenant, { firstName: "Ada", lastName: "Admin" })
    const organiser = yield* makeUser(tenant, { firstName: "Olga", lastName: "Organiser" })
    return {
      tenant,
      admin,
      organiser,
      adminHeaders: yield* signIn(admin),
      organiserHeaders: yield* signIn(organiser),
      members: yield* makeSignedInMembers(tenant, members),
      anonymous: tenantHeaders(tenant)
    }
  })

const sqlRows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

const rsvpsOf = (event: { readonly id: number }) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ user_id: string; status: string }>`SELECT user_id, status FROM event_rsvps WHERE event_id = ${event.id}`
    ),
    (rows) => new Map(rows.map((r) => [Number(r.user_id), r.status]))
  )

const waitlistOf = (event: { readonly id: number }) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ user_id: string }>`SELECT user_id FROM event_waitlist WHERE event_id = ${event.id} ORDER BY id`
    ),
    (rows) => rows.map((r) => Number(r.user_id))
  )

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ payload: Record<string, unknown> }>`
        SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`
    ),
    (rows) => rows.map((r) => r.payload)
  )

const addReminder = (event: TestEvent, user: TestUser, offsetMinutes: number, status = "pending") =>
  sqlRows((sql) =>
    sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, status, scheduled_for)
        VALUES (${user.tenant.id}, ${event.id}, ${user.id}, ${offsetMinutes}, 'platform', ${status},
                now() + interval '1 hour')`
  )

const remindersOf = (event: TestEvent, user: TestUser) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ offset_minutes: number; status: string }>`
        SELECT offset_minutes, status FROM event_reminders WHERE event_id = ${event.id} AND user_id = ${user.id}
        ORDER BY offset_minutes`
    ),
    (rows) => rows.map((r) => `${r.offset_minutes}:${r.status}`)
  )

const idsOf = (members: ReadonlyArray<SignedInMember>) => members.map((m) => m.user.id)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event RSVPs", (it) => {
  describe("POST /events/{id}/rsvp", () => {
    it.effect("going takes a place (200, counts), writes the RSVP and RsvpChanged once; again changes nothing", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser, tenant } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 5 })
        const res = yield* rsvp(mia!.headers, event, "going")
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, {
          data: { status: "going", counts: { going: 1, interested: 0, waitlist: 0 } },
          meta: {}
        })
        assert.strictEqual((yield* rsvpsOf(event)).get(mia!.user.id), "going")
        const again = yield* answer(mia!.headers, event, "going")
        assert.deepStrictEqual(again, { status: "going", counts: { going: 1, interested: 0, waitlist: 0 } })
        assert.deepStrictEqual(yield* outboxOf(tenant, "RsvpChanged"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: mia!.user.id,
          from: null,
          to: "going"
        }])
      }))

    it.effect("every answer moves to that status: going → interested → not_going → declined → going", () =>
      Effect.gen(function*() {
        const { members: [mia, noah], organiser, tenant } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 5 })
        yield* answer(noah!.headers, event, "interested")
        const steps: Array<[string, Counts]> = [
          ["going", { going: 1, interested: 1, waitlist: 0 }],
          ["interested", { going: 0, interested: 2, waitlist: 0 }],
          ["not_going", { going: 0, interested: 1, waitlist: 0 }],
          ["declined", { going: 0, interested: 1, waitlist: 0 }],
          ["going", { going: 1, interested: 1, waitlist: 0 }]
        ]
        for (const [status, counts] of steps) {
          assert.deepStrictEqual(yield* answer(mia!.headers, event, status), { status, counts })
          assert.strictEqual((yield* rsvpsOf(event)).get(mia!.user.id), status)
        }
        const changes = (yield* outboxOf(tenant, "RsvpChanged")).filter((p) => p.user_id === mia!.user.id)
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
        const { members: [mia, noah], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        assert.deepStrictEqual(yield* answer(mia!.headers, event, "not_going"), {
          status: "not_going",
          counts: { going: 0, interested: 0, waitlist: 0 }
        })
        assert.strictEqual((yield* answer(noah!.headers, event, "declined")).status, "declined")
        assert.strictEqual((yield* answer(noah!.headers, event, "going")).status, "going")
      }))

    it.effect("going to a full event: 200 waitlisted with positions in arrival order; others still answer", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle, pia], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.headers, event, "going")
        assert.deepStrictEqual(yield* answer(noah!.headers, event, "going"), {
          status: "waitlisted",
          waitlist_position: 1,
          counts: { going: 1, interested: 0, waitlist: 1 }
        })
        assert.deepStrictEqual(yield* answer(olle!.headers, event, "going"), {
          status: "waitlisted",
          waitlist_position: 2,
          counts: { going: 1, interested: 0, waitlist: 2 }
        })
        // Asking again keeps the place in the queue.
        assert.strictEqual((yield* answer(noah!.headers, event, "going")).waitlist_position, 1)
        assert.strictEqual((yield* answer(pia!.headers, event, "interested")).status, "interested")
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.user.id, olle!.user.id])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.user.id))
      }))

    it.effect("full with waitlist_enabled false → 409 EVENT_FULL and nothing written", () =>
      Effect.gen(function*() {
        const { members: [mia, noah], organiser } = yield* community({ settings: { waitlist_enabled: false } })
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.headers, event, "going")
        expectError(yield* rsvp(noah!.headers, event, "going"), 409, "EVENT_FULL")
        expectError(yield* call("POST", `${EVENTS}/${event.id}/waitlist`, noah!.headers), 409, "EVENT_FULL")
        assert.deepStrictEqual(yield* waitlistOf(event), [])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.user.id))
        assert.strictEqual((yield* answer(noah!.headers, event, "interested")).status, "interested")
      }))

    it.effect("a cancelled event refuses every answer with 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { status: "cancelled" })
        for (const status of ["going", "interested", "not_going", "declined"]) {
          expectError(yield* rsvp(mia!.headers, event, status), 409, "EVENT_CANCELLED")
        }
        assert.strictEqual((yield* rsvpsOf(event)).size, 0)
      }))

    it.effect("a past event refuses going and interested with 422 EVENT_ENDED; not_going is still recorded", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser } = yield* community()
        const ended = yield* makeEvent(organiser, { startsInHours: -3, hours: 2 })
        const startedNoEnd = yield* makeEvent(organiser, { startsInHours: -0.1, hours: null })
        const running = yield* makeEvent(organiser, { startsInHours: -1, hours: 2 })
        for (const event of [ended, startedNoEnd]) {
          expectError(yield* rsvp(mia!.headers, event, "going"), 422, "EVENT_ENDED")
          expectError(yield* rsvp(mia!.headers, event, "interested"), 422, "EVENT_ENDED")
        }
        assert.strictEqual((yield* answer(mia!.headers, ended, "not_going")).status, "not_going")
        assert.strictEqual((yield* answer(mia!.headers, running, "going")).status, "going")
      }))

    it.effect("members-only meeting: not approved → KISS_TREFFEN_MEMBERS_ONLY from the entity; approved members go", () =>
      Effect.gen(function*() {
        const { members: [mia, noah], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { membersOnly: true, maxAttendees: 1 })
        // Accounts that are not approved cannot authenticate at all (decisions D4), so the entity is asked directly
        // with what the service passes from the caller's Actor.
        const entity = (yield* EventEntity.client)(eventEntityId(organiser.tenant.id, event.id))
        for (const status of ["going", "interested"] as const) {
          const refused = yield* Effect.flip(entity.Rsvp({ userId: mia!.user.id, isApproved: false, status }))
          assert.strictEqual(refused._tag, "MembersOnly")
        }
        assert.strictEqual((yield* answer(noah!.headers, event, "going")).status, "going")
        const waitlistRefused = yield* Effect.flip(entity.JoinWaitlist({ userId: mia!.user.id, isApproved: false }))
        assert.strictEqual(waitlistRefused._tag, "MembersOnly")
        assert.isFalse((yield* rsvpsOf(event)).has(mia!.user.id))
        assert.deepStrictEqual(yield* waitlistOf(event), [])
        // Approved, the same member simply waits for a place; once approval is withdrawn they cannot act at all.
        assert.strictEqual((yield* answer(mia!.headers, event, "going")).status, "waitlisted")
        yield* sqlRows((sql) => sql`UPDATE users SET is_approved = false WHERE id = ${mia!.user.id}`)
        expectError(yield* rsvp(mia!.headers, event, "going"), 401, "AUTH_REQUIRED")
      }))

    it.effect("an unknown or missing status → 422 VALIDATION_ERROR field status", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser } = yield* community()
        const event = yield* makeEvent(organiser)
        for (const body of [{ status: "maybe" }, { status: "attended" }, { status: "invited" }, {}, { status: 1 }]) {
          const res = yield* call("POST", `${EVENTS}/${event.id}/rsvp`, mia!.headers, body)
          expectError(res, 422, "VALIDATION_ERROR")
          assert.deepStrictEqual((res.body as ErrorBody).errors.map((e) => e.field), ["status"], res.text)
        }
        assert.strictEqual((yield* rsvpsOf(event)).size, 0)
      }))

    it.effect("the answers of an attendee who was checked in no longer change (409 ALREADY_ATTENDED)", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser } = yield* community()
        const event = yield* makeEvent(organiser)
        yield* answer(mia!.headers, event, "going")
        yield* sqlRows((sql) => sql`UPDATE event_rsvps SET status = 'attended' WHERE event_id = ${event.id}`)
        // The entity remembers places; tell it the row changed, as any write outside it must.
        yield* Effect.flatMap(
          EventEntity.client,
          (client) => client(eventEntityId(organiser.tenant.id, event.id)).Refresh({})
        )
        expectError(yield* rsvp(mia!.headers, event, "not_going"), 409, "ALREADY_ATTENDED")
        expectError(yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, mia!.headers), 409, "ALREADY_ATTENDED")
        assert.strictEqual((yield* rsvpsOf(event)).get(mia!.user.id), "attended")
      }))
  })

  describe("promotion from the waitlist", () => {
    it.effect("a going member cancels: the first waiter becomes going, the rest move up; outbox rows", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle, pia], organiser, tenant } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.headers, event, "going")
        for (const m of [noah!, olle!, pia!]) yield* answer(m.headers, event, "going")
        const res = yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, mia!.headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, {
          data: { removed: true, counts: { going: 1, interested: 0, waitlist: 2 } },
          meta: {}
        })
        const rsvps = yield* rsvpsOf(event)
        assert.isFalse(rsvps.has(mia!.user.id))
        assert.strictEqual(rsvps.get(noah!.user.id), "going")
        assert.deepStrictEqual(yield* waitlistOf(event), [olle!.user.id, pia!.user.id])
        assert.deepStrictEqual(
          dataOf((yield* call("GET", `${EVENTS}/${event.id}/waitlist`, pia!.headers)).body),
          { entries: [], my_position: 2, total: 2 }
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "WaitlistPromoted"), [{
          event_id: event.id,
          event_title: event.title,
          organiser_id: organiser.id,
          user_id: noah!.user.id
        }])
        const changes = (yield* outboxOf(tenant, "RsvpChanged")).map((p) => [p.user_id, p.from, p.to])
        assert.deepStrictEqual(changes, [
          [mia!.user.id, null, "going"],
          [mia!.user.id, "going", null],
          [noah!.user.id, null, "going"]
        ])
        // Answering not_going frees the place the same way.
        yield* answer(noah!.headers, event, "not_going")
        assert.strictEqual((yield* rsvpsOf(event)).get(olle!.user.id), "going")
        assert.deepStrictEqual(yield* waitlistOf(event), [pia!.user.id])
      }))

    it.effect("with waitlist_auto_promote false nobody is promoted", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], organiser, tenant } = yield* community({
          settings: { waitlist_auto_promote: false }
        })
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.headers, event, "going")
        yield* answer(noah!.headers, event, "going")
        const res = yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, mia!.headers)
        assert.deepStrictEqual(dataOf(res.body), { removed: true, counts: { going: 0, interested: 0, waitlist: 1 } })
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.user.id])
        assert.isFalse((yield* rsvpsOf(event)).has(noah!.user.id))
        assert.deepStrictEqual(yield* outboxOf(tenant, "WaitlistPromoted"), [])
        // The free place goes to whoever asks for it.
        assert.strictEqual((yield* answer(olle!.headers, event, "going")).status, "going")
      }))

    it.effect("capacity raised by the organiser's edit promotes as many waiters as new places, in order", () =>
      Effect.gen(function*() {
        const { members, organiser, organiserHeaders, tenant } = yield* community({}, 4)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of members) yield* answer(m.headers, event, "going")
        const res = yield* call("PUT", `${EVENTS}/${event.id}`, organiserHeaders, { max_attendees: 3 })
        assert.strictEqual(res.status, 200, res.text)
        const rsvps = yield* rsvpsOf(event)
        assert.deepStrictEqual(idsOf(members).map((id) => rsvps.get(id) ?? null), ["going", "going", "going", null])
        assert.deepStrictEqual(yield* waitlistOf(event), [members[3]!.user.id])
        assert.deepStrictEqual(
          (yield* outboxOf(tenant, "WaitlistPromoted")).map((p) => p.user_id),
          [members[1]!.user.id, members[2]!.user.id]
        )
      }))

    it.effect("capacity raised in the database, then the entity's Refresh promotes from what it reads again", () =>
      Effect.gen(function*() {
        const { members, organiser } = yield* community({}, 3)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of members) yield* answer(m.headers, event, "going")
        yield* sqlRows((sql) => sql`UPDATE events SET max_attendees = 2 WHERE id = ${event.id}`)
        const refreshed = yield* Effect.flatMap(
          EventEntity.client,
          (client) => client(eventEntityId(organiser.tenant.id, event.id)).Refresh({})
        )
        assert.deepStrictEqual(refreshed.promoted, [members[1]!.user.id])
        assert.deepStrictEqual(yield* waitlistOf(event), [members[2]!.user.id])
        assert.deepStrictEqual(
          dataOf<RsvpAnswer>((yield* rsvp(members[2]!.headers, event, "going")).body),
          { status: "waitlisted", waitlist_position: 1, counts: { going: 2, interested: 0, waitlist: 1 } }
        )
      }))
  })

  describe("reminders", () => {
    it.effect("not_going, declined and DELETE cancel the member's pending reminders, nobody else's", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle, pia], organiser } = yield* community()
        const event = yield* makeEvent(organiser)
        for (const m of [mia!, noah!, olle!, pia!]) {
          yield* answer(m.headers, event, "going")
          yield* addReminder(event, m.user, 60)
          yield* addReminder(event, m.user, 1440, "sent")
        }
        yield* answer(mia!.headers, event, "not_going")
        yield* answer(noah!.headers, event, "declined")
        assert.strictEqual((yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, olle!.headers)).status, 200)
        yield* answer(pia!.headers, event, "interested")
        for (const m of [mia!, noah!, olle!]) {
          assert.deepStrictEqual(yield* remindersOf(event, m.user), ["60:cancelled", "1440:sent"])
        }
        assert.deepStrictEqual(yield* remindersOf(event, pia!.user), ["60:pending", "1440:sent"])
      }))
  })

  describe("DELETE /events/{id}/rsvp", () => {
    it.effect("removes the RSVP (removed: true); without one → 200 removed: false", () =>
      Effect.gen(function*() {
        const { members: [mia, noah], organiser } = yield* community()
        const event = yield* makeEvent(organiser)
        yield* answer(mia!.headers, event, "interested")
        yield* answer(noah!.headers, event, "going")
        const res = yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, mia!.headers)
        assert.deepStrictEqual(res.body, {
          data: { removed: true, counts: { going: 1, interested: 0, waitlist: 0 } },
          meta: {}
        })
        assert.isFalse((yield* rsvpsOf(event)).has(mia!.user.id))
        const again = yield* call("DELETE", `${EVENTS}/${event.id}/rsvp`, mia!.headers)
        assert.strictEqual(again.status, 200)
        assert.deepStrictEqual(dataOf(again.body), { removed: false, counts: { going: 1, interested: 0, waitlist: 0 } })
      }))
  })

  describe("the waitlist routes", () => {
    it.effect("GET: the organiser and admins see every entry in order with names; members only their position", () =>
      Effect.gen(function*() {
        const { adminHeaders, members: [mia, noah, olle, pia], organiser, organiserHeaders } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of [mia!, noah!, olle!]) yield* answer(m.headers, event, "going")
        const res = yield* call("GET", `${EVENTS}/${event.id}/waitlist`, organiserHeaders)
        assert.strictEqual(res.status, 200, res.text)
        const view = dataOf<{
          entries: Array<{ user: object; position: number; joined_at: string }>
          my_position: number | null
          total: number
        }>(res.body)
        assert.deepStrictEqual(view.entries.map((e) => [e.user, e.position]), [
          [{ id: noah!.user.id, first_name: "Member", last_name: "2", avatar_url: null }, 1],
          [{ id: olle!.user.id, first_name: "Member", last_name: "3", avatar_url: null }, 2]
        ])
        assert.match(view.entries[0]!.joined_at, /Z$/)
        assert.deepInclude(view, { my_position: null, total: 2 })
        assert.deepStrictEqual(dataOf((yield* call("GET", `${EVENTS}/${event.id}/waitlist`, adminHeaders)).body), view)
        assert.deepStrictEqual(
          dataOf((yield* call("GET", `${EVENTS}/${event.id}/waitlist`, olle!.headers)).body),
          { entries: [], my_position: 2, total: 2 }
        )
        assert.deepStrictEqual(
          dataOf((yield* call("GET", `${EVENTS}/${event.id}/waitlist`, pia!.headers)).body),
          { entries: [], my_position: null, total: 2 }
        )
      }))

    it.effect("POST joins a full event's waitlist (again: same position); free places or going → 409", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const join = (m: SignedInMember) => call("POST", `${EVENTS}/${event.id}/waitlist`, m.headers)
        expectError(yield* join(mia!), 409, "WAITLIST_NOT_NEEDED")
        yield* answer(mia!.headers, event, "going")
        expectError(yield* join(mia!), 409, "WAITLIST_NOT_NEEDED")
        yield* answer(noah!.headers, event, "interested")
        const joined = yield* join(noah!)
        assert.strictEqual(joined.status, 200, joined.text)
        assert.deepStrictEqual(joined.body, {
          data: { waitlist_position: 1, counts: { going: 1, interested: 1, waitlist: 1 } },
          meta: {}
        })
        assert.strictEqual(dataOf<{ waitlist_position: number }>((yield* join(olle!)).body).waitlist_position, 2)
        assert.strictEqual(dataOf<{ waitlist_position: number }>((yield* join(noah!)).body).waitlist_position, 1)
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.user.id, olle!.user.id])
      }))

    it.effect("DELETE leaves the waitlist, positions behind move up; not waiting → 404", () =>
      Effect.gen(function*() {
        const { members: [mia, noah, olle, pia], organiser } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        for (const m of [mia!, noah!, olle!, pia!]) yield* answer(m.headers, event, "going")
        const res = yield* call("DELETE", `${EVENTS}/${event.id}/waitlist`, noah!.headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, {
          data: { left: true, counts: { going: 1, interested: 0, waitlist: 2 } },
          meta: {}
        })
        assert.deepStrictEqual(yield* waitlistOf(event), [olle!.user.id, pia!.user.id])
        const positionOf = (m: SignedInMember) =>
          Effect.map(
            call("GET", `${EVENTS}/${event.id}/waitlist`, m.headers),
            (r) => dataOf<{ my_position: number | null }>(r.body).my_position
          )
        assert.deepStrictEqual([yield* positionOf(olle!), yield* positionOf(pia!), yield* positionOf(noah!)], [
          1,
          2,
          null
        ])
        expectError(yield* call("DELETE", `${EVENTS}/${event.id}/waitlist`, noah!.headers), 404, "NOT_FOUND")
        expectError(yield* call("DELETE", `${EVENTS}/${event.id}/waitlist`, mia!.headers), 404, "NOT_FOUND")
      }))
  })

  describe("GET /events/{id}/attendees", () => {
    it.effect("the roster (going, interested, attended; not the refusals) for organiser, admin and attendees", () =>
      Effect.gen(function*() {
        const { adminHeaders, members: [mia, noah, olle, pia], organiser, organiserHeaders } = yield* community()
        const event = yield* makeEvent(organiser)
        yield* answer(mia!.headers, event, "going")
        yield* answer(noah!.headers, event, "interested")
        yield* answer(olle!.headers, event, "not_going")
        const res = yield* call("GET", `${EVENTS}/${event.id}/attendees`, organiserHeaders)
        assert.strictEqual(res.status, 200, res.text)
        const roster = dataOf<
          Array<
            {
              user: Record<string, unknown> & { id: number }
              status: string
              checked_in_at: null
              responded_at: string
            }
          >
        >(
          res.body
        )
        assert.deepStrictEqual(roster.map((a) => [a.user.id, a.status, a.checked_in_at]), [
          [mia!.user.id, "going", null],
          [noah!.user.id, "interested", null]
        ])
        assert.deepStrictEqual(roster[0]!.user, {
          id: mia!.user.id,
          first_name: "Member",
          last_name: "1",
          avatar_url: null
        })
        assert.match(roster[0]!.responded_at, /Z$/)
        for (const headers of [adminHeaders, mia!.headers, noah!.headers]) {
          assert.deepStrictEqual(dataOf((yield* call("GET", `${EVENTS}/${event.id}/attendees`, headers)).body), roster)
        }
        // Members without an RSVP on the roster (none, or a refusal) get an empty roster.
        for (const headers of [olle!.headers, pia!.headers]) {
          const empty = yield* call("GET", `${EVENTS}/${event.id}/attendees`, headers)
          assert.strictEqual(empty.status, 200)
          assert.deepStrictEqual(empty.body, { data: [], meta: {} })
        }
        expectError(
          yield* call("GET", `${EVENTS}/${event.id}/attendees`, tenantHeaders(organiser.tenant)),
          401,
          "AUTH_REQUIRED"
        )
      }))
  })

  describe("who may call, and which events exist", () => {
    it.effect("another tenant's event → 404 on every route; unknown and malformed ids → 404", () =>
      Effect.gen(function*() {
        const home = yield* community()
        const away = yield* community()
        const theirs = yield* makeEvent(away.organiser, { maxAttendees: 1 })
        const mia = home.members[0]!
        const routes = (id: string, attendee: number): Array<[Method, string, unknown]> => [
          ["POST", `${EVENTS}/${id}/rsvp`, { status: "going" }],
          ["DELETE", `${EVENTS}/${id}/rsvp`, undefined],
          ["GET", `${EVENTS}/${id}/waitlist`, undefined],
          ["POST", `${EVENTS}/${id}/waitlist`, undefined],
          ["DELETE", `${EVENTS}/${id}/waitlist`, undefined],
          ["GET", `${EVENTS}/${id}/attendees`, undefined],
          ["POST", `${EVENTS}/${id}/attendees/${attendee}/check-in`, undefined]
        ]
        yield* answer(away.members[0]!.headers, theirs, "going")
        for (const headers of [mia.headers, home.adminHeaders]) {
          for (const id of [String(theirs.id), "999999999", "abc", "0", "-1"]) {
            for (const [method, path, body] of routes(id, away.members[0]!.user.id)) {
              const res = yield* call(method, path, headers, body)
              expectError(res, 404, "NOT_FOUND")
            }
          }
        }
        expectError(
          yield* call("POST", `${EVENTS}/${theirs.id}/attendees/abc/check-in`, away.organiserHeaders),
          404,
          "NOT_FOUND"
        )
        assert.deepStrictEqual([...(yield* rsvpsOf(theirs)).keys()], [away.members[0]!.user.id])
        assert.deepStrictEqual(yield* waitlistOf(theirs), [])
      }))

    it.effect("a platform super-admin visiting may read but not RSVP or wait: 403 FORBIDDEN", () =>
      Effect.gen(function*() {
        const { members: [mia], organiser, tenant } = yield* community()
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.headers, event, "going")
        const visitor = { ...(yield* signIn(yield* makeSuperAdmin())), ...tenantHeaders(tenant) }
        for (
          const [method, path, body] of [
            ["POST", `${EVENTS}/${event.id}/rsvp`, { status: "going" }],
            ["DELETE", `${EVENTS}/${event.id}/rsvp`, undefined],
            ["POST", `${EVENTS}/${event.id}/waitlist`, undefined],
            ["DELETE", `${EVENTS}/${event.id}/waitlist`, undefined]
          ] as const
        ) {
          expectError(yield* call(method, path, visitor, body), 403, "FORBIDDEN")
        }
        assert.strictEqual((yield* call("GET", `${EVENTS}/${event.id}/attendees`, visitor)).status, 200)
        assert.deepStrictEqual(yield* waitlistOf(event), [])
      }))

    it.effect("no token → 401 AUTH_REQUIRED; events switched off → 403 FEATURE_DISABLED on every route", () =>
      Effect.gen(function*() {
        const on = yield* community()
        const event = yield* makeEvent(on.organiser)
        expectError(yield* rsvp(on.anonymous, event, "going"), 401, "AUTH_REQUIRED")
        expectError(yield* call("GET", `${EVENTS}/${event.id}/waitlist`, on.anonymous), 401, "AUTH_REQUIRED")
        const off = yield* community({ features: { events: false } })
        const offEvent = yield* makeEvent(off.organiser)
        const mia = off.members[0]!
        for (
          const [method, path, body] of [
            ["POST", `${EVENTS}/${offEvent.id}/rsvp`, { status: "going" }],
            ["DELETE", `${EVENTS}/${offEvent.id}/rsvp`, undefined],
            ["GET", `${EVENTS}/${offEvent.id}/waitlist`, undefined],
            ["POST", `${EVENTS}/${offEvent.id}/waitlist`, undefined],
            ["DELETE", `${EVENTS}/${offEvent.id}/waitlist`, undefined],
            ["GET", `${EVENTS}/${offEvent.id}/attendees`, undefined]
          ] as const
        ) {
          expectError(yield* call(method, path, mia.headers, body), 403, "FEATURE_DISABLED")
        }
        expectError(
          yield* call("POST", `${EVENTS}/${offEvent.id}/attendees/${mia.user.id}/check-in`, off.organiserHeaders),
          403,
          "FEATURE_DISABLED"
        )
        assert.strictEqual((yield* rsvpsOf(offEvent)).size, 0)
      }))
  })

  describe("capacity under load", () => {
    it.effect(
      "500 concurrent going RSVPs from distinct members to 20 places: 20 going, 480 waiting 1..480",
      () =>
        Effect.gen(function*() {
          const { members, organiser } = yield* community({}, 500)
          const event = yield* makeEvent(organiser, { maxAttendees: 20 })
          const answers = yield* Effect.all(
            members.map((m) => Effect.map(rsvp(m.headers, event, "going"), (res) => ({ member: m, res }))),
            { concurrency: "unbounded" }
          )
          for (const { res } of answers) assert.strictEqual(res.status, 200, res.text)
          const going = answers.filter(({ res }) => dataOf<RsvpAnswer>(res.body).status === "going")
          const waiting = answers.filter(({ res }) => dataOf<RsvpAnswer>(res.body).status === "waitlisted")
          assert.strictEqual(going.length, 20)
          assert.strictEqual(waiting.length, 480)
          const positions = waiting.map(({ res }) => dataOf<RsvpAnswer>(res.body).waitlist_position!).sort((a, b) =>
            a - b
          )
          assert.deepStrictEqual(positions, Array.from({ length: 480 }, (_, i) => i + 1))

          // The database agrees: the 20 who were told "going", and the waitlist in the order of the positions given.
          const rsvps = yield* rsvpsOf(event)
          assert.deepStrictEqual(
            [...rsvps.keys()].sort((a, b) => a - b),
            going.map(({ member }) => member.user.id).sort((a, b) => a - b)
          )
          assert.isTrue([...rsvps.values()].every((s) => s === "going"))
          const byPosition = [...waiting]
            .sort((a, b) =>
              dataOf<RsvpAnswer>(a.res.body).waitlist_position! - dataOf<RsvpAnswer>(b.res.body).waitlist_position!
            )
            .map(({ member }) => member.user.id)
          assert.deepStrictEqual(yield* waitlistOf(event), byPosition)
          const last = waiting.find(({ res }) => dataOf<RsvpAnswer>(res.body).waitlist_position === 480)!
          assert.deepStrictEqual(
            dataOf((yield* call("GET", `${EVENTS}/${event.id}/waitlist`, last.member.headers)).body),
            { entries: [], my_position: 480, total: 480 }
          )
        }),
      120_000
    )
  })
})
