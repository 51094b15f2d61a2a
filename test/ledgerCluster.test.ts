import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { apiClient, expectStatus, statusOf } from "./fixtures/client.js"
import { balanceOf, fund, pay, verifyLedger } from "./fixtures/ledger.js"
import { twoServers } from "./fixtures/servers.js"
import { makeTenant } from "./fixtures/tenants.js"
import { authHeaders, makeAdmin, makeUser } from "./fixtures/users.js"

describe("the ledger on two runners (socket mode) sharing one database", () => {
  it.scopedLive(
    "a transfer sent twice with one Idempotency-Key through both processes pays once",
    () =>
      Effect.gen(function*() {
        const { onA, onB } = yield* twoServers()

        const tenant = yield* onA(makeTenant({ settings: { starting_balance: 0 } }))
        const admin = yield* onA(authHeaders(yield* onA(makeAdmin(tenant))))
        const payer = yield* onA(makeUser(tenant))
        const payee = yield* onA(makeUser(tenant))
        const payerHeaders = yield* onA(authHeaders(payer))
        const payeeHeaders = yield* onB(authHeaders(payee))
        yield* onB(fund(admin, payer.id, 10))
        const payerViaA = yield* onA(apiClient(payerHeaders))
        const payerViaB = yield* onB(apiClient(payerHeaders))

        for (let round = 0; round < 5; round++) {
          const key = randomUUID()
          const body = { recipient_id: payee.id, amount: 1, description: `round ${round}` }
          const [viaA, viaB] = yield* Effect.all([
            pay(payerViaA, body, key).pipe(expectStatus(201)),
            pay(payerViaB, body, key).pipe(expectStatus(201))
          ], {
            concurrency: 2
          })
          assert.deepStrictEqual(viaA, viaB, "both processes answer with the one transaction")
        }
        assert.strictEqual(yield* onA(balanceOf(payerHeaders)), 5)
        assert.strictEqual(yield* onB(balanceOf(payeeHeaders)), 5)

        // Concurrent moves of one community arriving through both processes are serialised: never overdrawn.
        const statuses = yield* Effect.all(
          Array.from(
            { length: 40 },
            (_, i) => statusOf(pay(i % 2 === 0 ? payerViaA : payerViaB, { recipient_id: payee.id, amount: 0.5 }))
          ),
          { concurrency: 40 }
        )
        assert.strictEqual(statuses.filter((s) => s === 201).length, 10)
        assert.strictEqual(statuses.filter((s) => s === 422).length, 30)
        assert.strictEqual(yield* onB(balanceOf(payerHeaders)), 0)
        assert.isTrue((yield* onA(verifyLedger(tenant.id))).ok)
      }),
    120_000
  )
})
