import { assert, describe, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf } from "../../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk } from "../../fixtures/client.js"
import { type Actor, community } from "../../fixtures/community.js"
import { answer, asJson, makeEvent, rawCall, rsvp, rsvpsOf, type TestEvent, waitlistOf } from "../../fixtures/events.js"
import { signIn } from "../../fixtures/members.js"
import { tenantHeaders } from "../../fixtures/tenants.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { makeSuperAdmin } from "../../fixtures/users.js"

const EVENTS = "/api/v2/events"

/** Four signed-in members besides the organiser (`member`), all signed in by token. */
const FOUR = { members: 4, signIn: "token" } as const

type Call = readonly [string, Effect.Effect<unknown, unknown>]

/** Every route of the group for one event (the check-in of `attendee`), through `client`. */
const everyRoute = (client: ApiClient, event: Pick<TestEvent, "id">, attendee: number): ReadonlyArray<Call> => {
  const path = { id: event.id }
  return [
    ["POST rsvp", client.eventRsvp.rsvp({ path, payload: { status: "going" } })],
    ["DELETE rsvp", client.eventRsvp.removeRsvp({ path })],
    ["GET waitlist", client.eventRsvp.waitlist({ path })],
    ["POST waitlist", client.eventRsvp.joinWaitlist({ path })],
    ["DELETE waitlist", client.eventRsvp.leaveWaitlist({ path })],
    ["GET attendees", client.eventRsvp.attendees({ path })],
    ["POST check-in", client.eventRsvp.checkIn({ path: { ...path, attendeeId: UserId.make(attendee) } })]
  ]
}

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event waitlist and roster", (it) => {
  describe("the waitlist routes", () => {
    it.effect("GET: the organiser and admins see every entry in order with names; members only their position", () =>
      Effect.gen(function*() {
        const { admin, member: organiser, members: [mia, noah, olle, pia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const path = { id: event.id }
        for (const m of [mia!, noah!, olle!]) yield* answer(m.client, event, "going")
        // Raw: `joined_at` as the wire writes it.
        const res = yield* rawCall("GET", `${EVENTS}/${event.id}/waitlist`, organiser.headers)
        assert.strictEqual(res.status, 200, res.text)
        const view = dataOf<{
          entries: Array<{ user: object; position: number; joined_at: string }>
          my_position: number | null
          total: number
        }>(res.body)
        assert.deepStrictEqual(view.entries.map((e) => [e.user, e.position]), [
          [{ id: noah!.id, first_name: "Member", last_name: "2", avatar_url: null }, 1],
          [{ id: olle!.id, first_name: "Member", last_name: "3", avatar_url: null }, 2]
        ])
        assert.match(view.entries[0]!.joined_at, /Z$/)
        assert.deepInclude(view, { my_position: null, total: 2 })
        assert.deepStrictEqual(asJson((yield* admin.client.eventRsvp.waitlist({ path }).pipe(expectOk)).data), view)
        assert.deepStrictEqual(
          (yield* olle!.client.eventRsvp.waitlist({ path }).pipe(expectOk)).data,
          { entries: [], my_position: 2, total: 2 }
        )
        assert.deepStrictEqual(
          (yield* pia!.client.eventRsvp.waitlist({ path }).pipe(expectOk)).data,
          { entries: [], my_position: null, total: 2 }
        )
      }))

    it.effect("POST joins a full event's waitlist (again: same position); free places or going → 409", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const join = (m: Actor) => m.client.eventRsvp.joinWaitlist({ path: { id: event.id } })
        yield* join(mia!).pipe(expectError(409, "WAITLIST_NOT_NEEDED"))
        yield* answer(mia!.client, event, "going")
        yield* join(mia!).pipe(expectError(409, "WAITLIST_NOT_NEEDED"))
        yield* answer(noah!.client, event, "interested")
        const joined = yield* join(noah!).pipe(expectOk)
        assert.deepStrictEqual(joined, {
          data: { waitlist_position: 1, counts: { going: 1, interested: 1, waitlist: 1 } },
          meta: {}
        })
        assert.strictEqual((yield* join(olle!).pipe(expectOk)).data.waitlist_position, 2)
        assert.strictEqual((yield* join(noah!).pipe(expectOk)).data.waitlist_position, 1)
        assert.deepStrictEqual(yield* waitlistOf(event), [noah!.id, olle!.id])
      }))

    it.effect("DELETE leaves the waitlist, positions behind move up; not waiting → 404", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia, noah, olle, pia] } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const path = { id: event.id }
        for (const m of [mia!, noah!, olle!, pia!]) yield* answer(m.client, event, "going")
        const res = yield* noah!.client.eventRsvp.leaveWaitlist({ path }).pipe(expectOk)
        assert.deepStrictEqual(res, {
          data: { left: true, counts: { going: 1, interested: 0, waitlist: 2 } },
          meta: {}
        })
        assert.deepStrictEqual(yield* waitlistOf(event), [olle!.id, pia!.id])
        const positionOf = (m: Actor) =>
          Effect.map(m.client.eventRsvp.waitlist({ path }).pipe(expectOk), (r) => r.data.my_position)
        assert.deepStrictEqual([yield* positionOf(olle!), yield* positionOf(pia!), yield* positionOf(noah!)], [
          1,
          2,
          null
        ])
        yield* noah!.client.eventRsvp.leaveWaitlist({ path }).pipe(expectError(404, "NOT_FOUND"))
        yield* mia!.client.eventRsvp.leaveWaitlist({ path }).pipe(expectError(404, "NOT_FOUND"))
      }))
  })

  describe("GET /events/{id}/attendees", () => {
    it.effect("the roster (going, interested, attended; not the refusals) for organiser, admin and attendees", () =>
      Effect.gen(function*() {
        const { admin, member: organiser, members: [mia, noah, olle, pia], visitor } = yield* community(FOUR)
        const event = yield* makeEvent(organiser)
        const path = { id: event.id }
        yield* answer(mia!.client, event, "going")
        yield* answer(noah!.client, event, "interested")
        yield* answer(olle!.client, event, "not_going")
        // Raw: `responded_at` as the wire writes it.
        const res = yield* rawCall("GET", `${EVENTS}/${event.id}/attendees`, organiser.headers)
        assert.strictEqual(res.status, 200, res.text)
        const roster = dataOf<
          Array<{
            user: Record<string, unknown> & { id: number }
            status: string
            checked_in_at: null
            responded_at: string
          }>
        >(res.body)
        assert.deepStrictEqual(roster.map((a) => [a.user.id, a.status, a.checked_in_at]), [
          [mia!.id, "going", null],
          [noah!.id, "interested", null]
        ])
        assert.deepStrictEqual(roster[0]!.user, {
          id: mia!.id,
          first_name: "Member",
          last_name: "1",
          avatar_url: null
        })
        assert.match(roster[0]!.responded_at, /Z$/)
        for (const actor of [admin, mia!, noah!]) {
          assert.deepStrictEqual<unknown>(
            asJson((yield* actor.client.eventRsvp.attendees({ path }).pipe(expectOk)).data),
            roster
          )
        }
        // Members without an RSVP on the roster (none, or a refusal) get an empty roster.
        for (const actor of [olle!, pia!]) {
          assert.deepStrictEqual(yield* actor.client.eventRsvp.attendees({ path }).pipe(expectOk), {
            data: [],
            meta: {}
          })
        }
        yield* visitor.client.eventRsvp.attendees({ path }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("who may call, and which events exist", () => {
    it.effect("another tenant's event → 404 on every route; unknown and malformed ids → 404", () =>
      Effect.gen(function*() {
        const home = yield* community(FOUR)
        const away = yield* community(FOUR)
        const theirs = yield* makeEvent(away.member, { maxAttendees: 1 })
        const mia = home.members[0]!
        const attendee = away.members[0]!
        yield* answer(attendee.client, theirs, "going")
        for (const actor of [mia, home.admin]) {
          for (const id of [theirs.id, 999999999 as TestEvent["id"]]) {
            for (const [route, call] of everyRoute(actor.client, { id }, attendee.id)) {
              const failure = yield* call.pipe(expectError(404, "NOT_FOUND"))
              assert.strictEqual(failure.status, 404, route)
            }
          }
          // Raw: ids that are not record ids cannot be written by the client.
          for (const id of ["abc", "0", "-1"]) {
            for (
              const [method, path, body] of [
                ["POST", `${EVENTS}/${id}/rsvp`, { status: "going" }],
                ["DELETE", `${EVENTS}/${id}/rsvp`, undefined],
                ["GET", `${EVENTS}/${id}/waitlist`, undefined],
                ["POST", `${EVENTS}/${id}/waitlist`, undefined],
                ["DELETE", `${EVENTS}/${id}/waitlist`, undefined],
                ["GET", `${EVENTS}/${id}/attendees`, undefined],
                ["POST", `${EVENTS}/${id}/attendees/${attendee.id}/check-in`, undefined]
              ] as const
            ) {
              const res = yield* rawCall(method, path, actor.headers, body)
              assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
              assert.strictEqual(codeOf(res.body), "NOT_FOUND", res.text)
            }
          }
        }
        const badAttendee = yield* rawCall("POST", `${EVENTS}/${theirs.id}/attendees/abc/check-in`, away.member.headers)
        assert.strictEqual(badAttendee.status, 404, badAttendee.text)
        assert.strictEqual(codeOf(badAttendee.body), "NOT_FOUND")
        assert.deepStrictEqual([...(yield* rsvpsOf(theirs)).keys()], [attendee.id])
        assert.deepStrictEqual(yield* waitlistOf(theirs), [])
      }))

    it.effect("a platform super-admin visiting may read but not RSVP or wait: 403 FORBIDDEN", () =>
      Effect.gen(function*() {
        const { member: organiser, members: [mia], tenant } = yield* community(FOUR)
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        const path = { id: event.id }
        yield* answer(mia!.client, event, "going")
        const visiting = yield* apiClient({ ...(yield* signIn(yield* makeSuperAdmin())), ...tenantHeaders(tenant) })
        const routes: ReadonlyArray<Call> = [
          ["POST rsvp", visiting.eventRsvp.rsvp({ path, payload: { status: "going" } })],
          ["DELETE rsvp", visiting.eventRsvp.removeRsvp({ path })],
          ["POST waitlist", visiting.eventRsvp.joinWaitlist({ path })],
          ["DELETE waitlist", visiting.eventRsvp.leaveWaitlist({ path })]
        ]
        for (const [route, call] of routes) {
          const failure = yield* call.pipe(expectError(403, "FORBIDDEN"))
          assert.strictEqual(failure.status, 403, route)
        }
        yield* visiting.eventRsvp.attendees({ path }).pipe(expectOk)
        assert.deepStrictEqual(yield* waitlistOf(event), [])
      }))

    it.effect("no token → 401 AUTH_REQUIRED; events switched off → 403 FEATURE_DISABLED on every route", () =>
      Effect.gen(function*() {
        const on = yield* community(FOUR)
        const event = yield* makeEvent(on.member)
        yield* rsvp(on.visitor.client, event, "going").pipe(expectError(401, "AUTH_REQUIRED"))
        yield* on.visitor.client.eventRsvp.waitlist({ path: { id: event.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
        const off = yield* community({ ...FOUR, features: { events: false } })
        const offEvent = yield* makeEvent(off.member)
        const mia = off.members[0]!
        // Every route as a member; the check-in as the organiser.
        const routes = [
          ...everyRoute(mia.client, offEvent, mia.id).slice(0, 6),
          ...everyRoute(off.member.client, offEvent, mia.id).slice(6)
        ]
        for (const [route, call] of routes) {
          const failure = yield* call.pipe(expectError(403, "FEATURE_DISABLED"))
          assert.strictEqual(failure.status, 403, route)
        }
        assert.strictEqual((yield* rsvpsOf(offEvent)).size, 0)
      }))
  })

  describe("capacity under load", () => {
    it.effect(
      "500 concurrent going RSVPs from distinct members to 20 places: 20 going, 480 waiting 1..480",
      () =>
        Effect.gen(function*() {
          const { member: organiser, members } = yield* community({ members: 500, signIn: "token" })
          const event = yield* makeEvent(organiser, { maxAttendees: 20 })
          // Each call succeeds only with the contract's 200.
          const answers = yield* Effect.all(
            members.map((m) => Effect.map(answer(m.client, event, "going"), (result) => ({ member: m, result }))),
            { concurrency: "unbounded" }
          )
          const going = answers.filter(({ result }) => result.status === "going")
          const waiting = answers.filter(({ result }) => result.status === "waitlisted")
          assert.strictEqual(going.length, 20)
          assert.strictEqual(waiting.length, 480)
          const positions = waiting.map(({ result }) => result.waitlist_position!).sort((a, b) => a - b)
          assert.deepStrictEqual(positions, Array.from({ length: 480 }, (_, i) => i + 1))

          // The database agrees: the 20 who were told "going", and the waitlist in the order of the positions given.
          const rsvps = yield* rsvpsOf(event)
          assert.deepStrictEqual(
            [...rsvps.keys()].sort((a, b) => a - b),
            going.map(({ member }) => member.id).sort((a, b) => a - b)
          )
          assert.isTrue([...rsvps.values()].every((s) => s === "going"))
          const byPosition = [...waiting]
            .sort((a, b) => a.result.waitlist_position! - b.result.waitlist_position!)
            .map(({ member }) => member.id)
          assert.deepStrictEqual(yield* waitlistOf(event), byPosition)
          const last = waiting.find(({ result }) => result.waitlist_position === 480)!
          assert.deepStrictEqual(
            (yield* last.member.client.eventRsvp.waitlist({ path: { id: event.id } }).pipe(expectOk)).data,
            { entries: [], my_position: 480, total: 480 }
          )
        }),
      120_000
    )
  })
})
