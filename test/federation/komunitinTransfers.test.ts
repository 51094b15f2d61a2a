import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { makeApiKey, makePartner } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import { K03_TRANSFER_COMMIT_REQUEST } from "./komunitinFixtures.js"
import {
  type Answer,
  assertJsonApi,
  assertKomunitinError,
  committedWithId,
  dataOf,
  externalAccount,
  jsonApi,
  KEY_SCOPES,
  komunitinCommunity,
  ledgerAmounts,
  pathOf,
  type Resource,
  transferTo,
  walletOf
} from "./komunitinKit.js"
import { clearingBalance } from "./writesKit.js"

/** Komunitin transfers' rules (decisions D16): one credit per id, the PATCH states, the credit limit, whose is whose. */

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Komunitin JSON:API transfers", (it) => {
  describe("one transfer id, one credit", () => {
    it.effect("the same data.id and body again: 200 with the transfer, credited once; another body: 409 Conflict", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const id = randomUUID()
        const payer = externalAccount()
        const send = (amount: number) => committedWithId(c, id, payer, amount)
        const first = yield* send(150)
        assertJsonApi(first, 201)
        const again = yield* send(150)
        assertJsonApi(again, 200)
        assert.deepStrictEqual(again.body, first.body)
        const other = yield* send(151)
        assertKomunitinError(other, 409, "Conflict")
        assert.strictEqual(yield* clearingBalance(c.partner), -1.5)
        assert.deepStrictEqual(yield* ledgerAmounts(c.tenant.id, `komunitin:${c.partner.id}:${id}`), [150])
        // `meta` is kept whole, nested keys included.
        assert.deepStrictEqual(dataOf<Resource>(first).attributes["meta"], {
          description: "Garden help",
          origin: { app: "komunitin" }
        })
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("concurrent copies of one transfer, and of one commit: one 201, the rest 200, one credit", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const id = randomUUID()
        const payer = externalAccount()
        const answers = yield* Effect.all(Array.from({ length: 6 }, () => committedWithId(c, id, payer, 120)), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 201])
        for (const answer of answers) assert.strictEqual(dataOf<Resource>(answer).attributes["state"], "committed")
        assert.deepStrictEqual(yield* ledgerAmounts(c.tenant.id, `komunitin:${c.partner.id}:${id}`), [120])

        const waiting = transferTo(c.account.account_id, { state: "new", amount: 80 })
        assertJsonApi(yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: waiting }), 201)
        const commits = yield* Effect.all(
          Array.from({ length: 6 }, () =>
            jsonApi("PATCH", pathOf(c.code, `/transfers/${waiting.data.id}`), {
              key: c.key,
              body: K03_TRANSFER_COMMIT_REQUEST
            })),
          { concurrency: "unbounded" }
        )
        for (const commit of commits) assertJsonApi(commit, 200)
        assert.deepStrictEqual(yield* ledgerAmounts(c.tenant.id, `komunitin:${c.partner.id}:${waiting.data.id}`), [80])
        assert.strictEqual(yield* clearingBalance(c.partner), -2)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("PATCH: new → committed once, new → deleted; the same state is 200; other moves 400 TransactionError", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const create = (state: "new" | "committed") =>
          Effect.map(
            jsonApi("POST", pathOf(c.code, "/transfers"), {
              key: c.key,
              body: transferTo(c.account.account_id, { state })
            }),
            (res) => dataOf<Resource>(res).id
          )
        const patch = (id: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
          jsonApi("PATCH", pathOf(c.code, `/transfers/${id}`), { key: c.key, body: { data: { ...extra, attributes } } })
        const stateOf = (res: Answer) => dataOf<Resource>(res).attributes["state"]

        const pending = yield* create("new")
        for (let i = 0; i < 2; i++) {
          const res = yield* patch(pending, { state: "committed" })
          assertJsonApi(res, 200)
          assert.strictEqual(stateOf(res), "committed")
        }
        assert.deepStrictEqual(yield* ledgerAmounts(c.tenant.id, `komunitin:${c.partner.id}:${pending}`), [150])
        assertKomunitinError(yield* patch(pending, { state: "deleted" }), 400, "TransactionError")
        assertKomunitinError(yield* patch(pending, { state: "rejected" }), 400, "TransactionError")
        assertKomunitinError(yield* patch(pending, { state: "new" }), 400, "TransactionError")

        const dropped = yield* create("new")
        assert.strictEqual(stateOf(yield* patch(dropped, { state: "new" })), "new")
        assert.strictEqual(stateOf(yield* patch(dropped, { state: "deleted" })), "deleted")
        assert.strictEqual(stateOf(yield* patch(dropped, { state: "deleted" })), "deleted")
        assertKomunitinError(yield* patch(dropped, { state: "committed" }), 400, "TransactionError")

        const other = yield* create("new")
        assertKomunitinError(
          yield* patch(other, { state: "committed" }, { id: randomUUID() }),
          400,
          "BadRequest",
          "Route 'id' does not match with resource 'id'"
        )
        assertKomunitinError(
          yield* patch(other, { amount: 999 }),
          400,
          "BadRequest",
          "Only the state of a partner's transfer changes here"
        )
        assertKomunitinError(yield* patch(other, { state: "pending" }), 400, "FieldValidationError")
        assertKomunitinError(yield* patch(randomUUID(), { state: "committed" }), 404, "NotFound")
        assertKomunitinError(yield* patch("not-a-uuid", { state: "committed" }), 404, "NotFound")
        assert.strictEqual(stateOf(yield* jsonApi("GET", pathOf(c.code, `/transfers/${other}`), { key: c.key })), "new")
        assert.strictEqual(yield* clearingBalance(c.partner), -1.5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("past the partner's credit limit: 400 InsufficientBalance, nothing recorded; a `new` one stays new", () =>
      Effect.gen(function*() {
        // credit_limit is in hours: 1 hour = 100 units.
        const c = yield* komunitinCommunity({ settings: { credit_limit: 1 } })
        const before = yield* walletOf(c.member)
        const over = transferTo(c.account.account_id, { amount: 101 })
        const refused = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: over })
        assertKomunitinError(refused, 400, "InsufficientBalance")
        assertKomunitinError(
          yield* jsonApi("GET", pathOf(c.code, `/transfers/${over.data.id}`), { key: c.key }),
          404,
          "NotFound"
        )

        const waiting = transferTo(c.account.account_id, { amount: 101, state: "new" })
        assertJsonApi(yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: waiting }), 201)
        const commit = yield* jsonApi("PATCH", pathOf(c.code, `/transfers/${waiting.data.id}`), {
          key: c.key,
          body: K03_TRANSFER_COMMIT_REQUEST
        })
        assertKomunitinError(commit, 400, "InsufficientBalance")
        const after = yield* jsonApi("GET", pathOf(c.code, `/transfers/${waiting.data.id}`), { key: c.key })
        assert.strictEqual(dataOf<Resource>(after).attributes["state"], "new")

        const exact = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: transferTo(c.account.account_id, { amount: 100 })
        })
        assertJsonApi(exact, 201)
        assert.strictEqual(yield* walletOf(c.member), before + 1)
        assert.strictEqual(yield* clearingBalance(c.partner), -1)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("a payee who did not opt in, or no account of ours, is 404; another partner's transfer is 404", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const otto = (yield* c.other.client.federationAccount.get()).data
        for (const payee of [otto.account_id, randomUUID()]) {
          const res = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: transferTo(payee) })
          assertKomunitinError(res, 404, "NotFound")
        }
        const mine = transferTo(c.account.account_id)
        assertJsonApi(yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: mine }), 201)
        const rival = yield* makePartner(c.tenant, { protocol: "komunitin" })
        const rivalKey = yield* makeApiKey(c.tenant, { scopes: KEY_SCOPES, partnerId: rival.id })
        assertKomunitinError(
          yield* jsonApi("GET", pathOf(c.code, `/transfers/${mine.data.id}`), { key: rivalKey }),
          404,
          "NotFound"
        )
        const list = yield* jsonApi("GET", pathOf(c.code, "/transfers"), { key: rivalKey })
        assert.deepStrictEqual((list.body as { data: unknown }).data, [])
        // The same id from another partner is another request.
        const taken = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: rivalKey, body: mine })
        assertKomunitinError(taken, 409, "Conflict")
        assert.strictEqual(yield* clearingBalance(rival), 0)
      }))
  })
})
