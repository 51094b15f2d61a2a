import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { dataOf } from "./fixtures/bodies.js"
import { makeEvent } from "./fixtures/events.js"
import { balanceOf, fund, verifyLedger } from "./fixtures/ledger.js"
import { makeSignedInMembers, signIn } from "./fixtures/members.js"
import { TestServerOn } from "./fixtures/servers.js"
import { makeTenant } from "./fixtures/tenants.js"
import { rawRequest } from "./fixtures/TestApp.js"
import { freshDatabase } from "./fixtures/TestDatabase.js"
import { makeAdmin, makeUser } from "./fixtures/users.js"

type Server = Layer.Layer.Success<ReturnType<typeof TestServerOn>>
type RsvpAnswer = { status: string; waitlist_position?: number; counts: { going: number; waitlist: number } }

const EVENTS = "/api/v2/events"

const rsvp = (headers: Record<string, string>, eventId: number, status: string) =>
  rawRequest("POST", `${EVENTS}/${eventId}/rsvp`, { headers, body: JSON.stringify({ status }) })

describe("the Event entity on two runners (socket mode) sharing one database", () => {
  it.scopedLive(
    "500 concurrent going RSVPs alternating between both processes: 20 going, 480 waiting 1..480",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const a = yield* Layer.build(TestServerOn(db.url))
        const b = yield* Layer.build(TestServerOn(db.url))
        const onA = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, a)
        const onB = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, b)
        const on = (i: number) => (i % 2 === 0 ? onA : onB)

        const tenant = yield* onA(makeTenant({ settings: { starting_balance: 0 } }))
        const organiser = yield* onA(makeUser(tenant))
        const members = yield* onA(makeSignedInMembers(tenant, 500))
        const event = yield* onA(makeEvent(organiser, { maxAttendees: 20 }))

        const answers = yield* Effect.all(
          members.map((m, i) => on(i)(rsvp(m.headers, event.id, "going"))),
          { concurrency: "unbounded" }
        )
        for (const res of answers) assert.strictEqual(res.status, 200, res.text)
        const results = answers.map((res) => dataOf<RsvpAnswer>(res.body))
        const goingIds = members.filter((_, i) => results[i]!.status === "going").map((m) => m.user.id)
        const waiting = members
          .map((m, i) => ({ id: m.user.id, result: results[i]! }))
          .filter(({ result }) => result.status === "waitlisted")
        assert.strictEqual(goingIds.length, 20)
        assert.strictEqual(waiting.length, 480)
        assert.deepStrictEqual(
          waiting.map(({ result }) => result.waitlist_position!).sort((x, y) => x - y),
          Array.from({ length: 480 }, (_, i) => i + 1)
        )
        const sql = yield* onB(SqlClient.SqlClient)
        const rsvps = yield* sql<{ user_id: string; status: string }>`
          SELECT user_id, status FROM event_rsvps WHERE event_id = ${event.id} ORDER BY user_id`
        assert.deepStrictEqual(rsvps.map((r) => Number(r.user_id)), [...goingIds].sort((x, y) => x - y))
        assert.isTrue(rsvps.every((r) => r.status === "going"))
        const queue = yield* sql<{ user_id: string }>`
          SELECT user_id FROM event_waitlist WHERE event_id = ${event.id} ORDER BY id`
        assert.deepStrictEqual(
          queue.map((r) => Number(r.user_id)),
          [...waiting].sort((x, y) => x.result.waitlist_position! - y.result.waitlist_position!).map((w) => w.id)
        )

        // A place given up through one process goes to the first waiter, whichever process is asked next.
        const leaver = members.find((m) => m.user.id === goingIds[0])!
        const removed = yield* onB(rawRequest("DELETE", `${EVENTS}/${event.id}/rsvp`, { headers: leaver.headers }))
        assert.strictEqual(removed.status, 200, removed.text)
        const first = waiting.find(({ result }) => result.waitlist_position === 1)!
        const second = waiting.find(({ result }) => result.waitlist_position === 2)!
        const promoted = members.find((m) => m.user.id === first.id)!
        const secondMember = members.find((m) => m.user.id === second.id)!
        assert.deepStrictEqual(dataOf((yield* onA(rsvp(promoted.headers, event.id, "going"))).body), {
          status: "going",
          counts: { going: 20, interested: 0, waitlist: 479 }
        })
        const view = yield* onB(rawRequest("GET", `${EVENTS}/${event.id}/waitlist`, { headers: secondMember.headers }))
        assert.deepStrictEqual(dataOf(view.body), { entries: [], my_position: 1, total: 479 })
      }),
    240_000
  )

  it.scopedLive(
    "check-ins of one event arriving through both processes pay each attendee once",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const a = yield* Layer.build(TestServerOn(db.url))
        const b = yield* Layer.build(TestServerOn(db.url))
        const onA = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, a)
        const onB = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, b)

        const tenant = yield* onA(makeTenant({ settings: { starting_balance: 0 } }))
        const adminHeaders = yield* onA(signIn(yield* onA(makeAdmin(tenant))))
        const organiser = yield* onA(makeUser(tenant))
        const organiserHeaders = yield* onA(signIn(organiser))
        yield* onA(fund(adminHeaders, organiser.id, 10))
        const members = yield* onA(makeSignedInMembers(tenant, 4))
        const event = yield* onA(makeEvent(organiser, { startsInHours: 0.25, hours: 1 }))
        for (const [i, m] of members.entries()) {
          const res = yield* (i % 2 === 0 ? onA : onB)(rsvp(m.headers, event.id, "going"))
          assert.strictEqual(res.status, 200, res.text)
        }
        const results = yield* Effect.all(
          members.flatMap((m) =>
            [onA, onB].map((on) =>
              on(rawRequest("POST", `${EVENTS}/${event.id}/attendees/${m.user.id}/check-in`, {
                headers: organiserHeaders
              }))
            )
          ),
          { concurrency: "unbounded" }
        )
        for (const res of results) assert.strictEqual(res.status, 200, res.text)
        const fresh = results.filter((res) => !dataOf<{ already_checked_in: boolean }>(res.body).already_checked_in)
        assert.strictEqual(fresh.length, 4)
        assert.strictEqual(yield* onB(balanceOf(organiserHeaders)), 6)
        for (const m of members) assert.strictEqual(yield* onA(balanceOf(m.headers)), 1)
        assert.isTrue((yield* onB(verifyLedger(tenant.id))).ok)
      }),
    120_000
  )
})
