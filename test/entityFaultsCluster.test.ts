import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { dataOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import { makeEvent } from "./fixtures/events.js"
import {
  answersAtOnce,
  assertServerError,
  faultMarker,
  FaultyServerOn,
  makeFaults,
  withRequestId
} from "./fixtures/faults.js"
import { balanceOf, fund, transfer, verifyLedger } from "./fixtures/ledger.js"
import { makeSignedInMembers } from "./fixtures/members.js"
import { rawRequest } from "./fixtures/TestApp.js"
import { freshDatabase } from "./fixtures/TestDatabase.js"
import { makeUser } from "./fixtures/users.js"

type Server = Layer.Layer.Success<ReturnType<typeof FaultyServerOn>>

const rsvp = (headers: Record<string, string>, eventId: number) =>
  rawRequest("POST", `/api/v2/events/${eventId}/rsvp`, { headers, body: JSON.stringify({ status: "going" }) })

describe("entities on two runners (socket mode) with faulty writes", () => {
  it.scopedLive(
    "a defect crossing runners answers 500 for that request only; the Ledger and Event entities keep serving",
    () =>
      Effect.gen(function*() {
        const faults = makeFaults()
        const db = yield* freshDatabase
        const a = yield* Layer.build(FaultyServerOn(db.url, faults))
        const b = yield* Layer.build(FaultyServerOn(db.url, faults))
        const onA = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, a)
        const onB = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, b)
        const on = (i: number) => (i % 2 === 0 ? onA : onB)

        // The member pays the other; funded through the other process.
        const c = yield* onA(community({ settings: { starting_balance: 0 }, signIn: "token" }))
        const { tenant } = c
        const payee = c.other
        const payerHeaders = c.member.headers
        yield* onB(fund(c.admin.headers, c.member.id, 20))

        // Each process sends a bad move among good ones: whichever runner owns the community's ledger, one of the
        // bad moves' defects comes back over the wire from the other process.
        const ledgerIds = [`ledger-a-${randomUUID()}`, `ledger-b-${randomUUID()}`]
        const [goods, bads] = yield* Effect.all([
          Effect.all(
            Array.from({ length: 8 }, (_, i) => on(i)(transfer(payerHeaders, { recipient_id: payee.id, amount: 1 }))),
            { concurrency: "unbounded" }
          ),
          Effect.all(
            ledgerIds.map((requestId, i) =>
              on(i)(transfer(withRequestId(payerHeaders, requestId), {
                recipient_id: payee.id,
                amount: 2,
                description: `bad ${faultMarker("die")}`
              }))
            ),
            { concurrency: 2 }
          )
        ], { concurrency: 2 })
        for (const res of goods) assert.strictEqual(res.status, 201, res.text)
        bads.forEach((res, i) => assertServerError(res, ledgerIds[i]!))
        for (const onServer of [onA, onB]) {
          yield* onServer(answersAtOnce(2, 201, () => transfer(payerHeaders, { recipient_id: payee.id, amount: 1 })))
        }
        assert.strictEqual(yield* onB(balanceOf(payerHeaders)), 20 - 8 - 4)
        assert.isTrue((yield* onA(verifyLedger(tenant.id))).ok)

        // The same for the Event entity: two bad RSVPs, one through each process, among good ones.
        const organiser = yield* onA(makeUser(tenant))
        const event = yield* onA(makeEvent(organiser, { maxAttendees: 10 }))
        const [badA, badB, ...good] = yield* onA(makeSignedInMembers(tenant, 6))
        faults.members.set(badA!.user.id, "die")
        faults.members.set(badB!.user.id, "die")
        const rsvpIds = [`rsvp-a-${randomUUID()}`, `rsvp-b-${randomUUID()}`]
        const [goodAnswers, badAnswers] = yield* Effect.all([
          Effect.all(good.map((m, i) => on(i)(rsvp(m.headers, event.id))), { concurrency: "unbounded" }),
          Effect.all(
            [badA!, badB!].map((m, i) => on(i)(rsvp(withRequestId(m.headers, rsvpIds[i]!), event.id))),
            { concurrency: 2 }
          )
        ], { concurrency: 2 })
        for (const res of goodAnswers) {
          assert.strictEqual(res.status, 200, res.text)
          assert.strictEqual(dataOf<{ status: string }>(res.body).status, "going")
        }
        badAnswers.forEach((res, i) => assertServerError(res, rsvpIds[i]!))

        faults.members.clear()
        yield* onB(answersAtOnce(1, 200, () => rsvp(badA!.headers, event.id)))
        yield* onA(answersAtOnce(1, 200, () => rsvp(badB!.headers, event.id)))
        const sql = yield* onA(SqlClient.SqlClient)
        const rows = yield* sql<{ user_id: string; status: string }>`
          SELECT user_id, status FROM event_rsvps WHERE event_id = ${event.id} ORDER BY user_id`
        assert.deepStrictEqual(
          rows.map((r) => [Number(r.user_id), r.status]),
          [badA!, badB!, ...good].map((m) => [m.user.id, "going"]).sort(([x], [y]) => Number(x) - Number(y))
        )
      }),
    120_000
  )
})
