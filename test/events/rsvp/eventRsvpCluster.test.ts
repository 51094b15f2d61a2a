import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { apiClient, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { answer, makeEvent } from "../../fixtures/events.js"
import { balanceOf, verifyLedger } from "../../fixtures/ledger.js"
import { twoServers } from "../../fixtures/servers.js"

describe("the Event entity on two runners (socket mode) sharing one database", () => {
  it.scopedLive(
    "500 concurrent going RSVPs alternating between both processes: 20 going, 480 waiting 1..480",
    () =>
      Effect.gen(function*() {
        const { onA, onB } = yield* twoServers()
        const on = (i: number) => (i % 2 === 0 ? onA : onB)

        // The actors' own clients talk to A; a client made on B talks to B.
        const { member: organiser, members } = yield* onA(
          community({ settings: { starting_balance: 0 }, members: 500, signIn: "token" })
        )
        const event = yield* onA(makeEvent(organiser, { maxAttendees: 20 }))

        // Each call succeeds only with the contract's 200.
        const results = yield* Effect.all(
          members.map((m, i) =>
            Effect.flatMap(on(i)(apiClient(m.headers)), (client) => answer(client, event, "going"))
          ),
          { concurrency: "unbounded" }
        )
        const goingIds = members.filter((_, i) => results[i]!.status === "going").map((m) => m.id)
        const waiting = members
          .map((m, i) => ({ id: m.id, result: results[i]! }))
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
        const path = { id: event.id }
        const leaver = members.find((m) => m.id === goingIds[0])!
        yield* (yield* onB(apiClient(leaver.headers))).eventRsvp.removeRsvp({ path }).pipe(expectOk)
        const first = waiting.find(({ result }) => result.waitlist_position === 1)!
        const second = waiting.find(({ result }) => result.waitlist_position === 2)!
        const promoted = members.find((m) => m.id === first.id)!
        const secondMember = members.find((m) => m.id === second.id)!
        assert.deepStrictEqual(yield* answer(promoted.client, event, "going"), {
          status: "going",
          counts: { going: 20, interested: 0, waitlist: 479 }
        })
        const view = yield* (yield* onB(apiClient(secondMember.headers))).eventRsvp.waitlist({ path }).pipe(expectOk)
        assert.deepStrictEqual(view.data, { entries: [], my_position: 1, total: 479 })
      }),
    240_000
  )

  it.scopedLive(
    "check-ins of one event arriving through both processes pay each attendee once",
    () =>
      Effect.gen(function*() {
        const { onA, onB } = yield* twoServers()

        const { member: organiser, members, tenant } = yield* onA(
          community({ settings: { starting_balance: 0 }, fund: { member: 10 }, members: 4, signIn: "token" })
        )
        const event = yield* onA(makeEvent(organiser, { startsInHours: 0.25, hours: 1 }))
        for (const [i, m] of members.entries()) {
          yield* answer(i % 2 === 0 ? m.client : yield* onB(apiClient(m.headers)), event, "going")
        }
        const organiserOn = [organiser.client, yield* onB(apiClient(organiser.headers))]
        // Each call succeeds only with the contract's 200.
        const results = yield* Effect.all(
          members.flatMap((m) =>
            organiserOn.map((client) =>
              client.eventRsvp.checkIn({ path: { id: event.id, attendeeId: UserId.make(m.id) } }).pipe(expectOk)
            )
          ),
          { concurrency: "unbounded" }
        )
        const fresh = results.filter((res) => !res.data.already_checked_in)
        assert.strictEqual(fresh.length, 4)
        assert.strictEqual(yield* onB(balanceOf(organiser.headers)), 6)
        for (const m of members) assert.strictEqual(yield* onA(balanceOf(m.headers)), 1)
        assert.isTrue((yield* onB(verifyLedger(tenant.id))).ok)
      }),
    120_000
  )
})
