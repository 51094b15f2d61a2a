import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { type ApiClient, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { federationCall, federationOn, makeApiKey, makePartner, type TestApiKey } from "../fixtures/federation.js"
import { fund, verifyLedger } from "../fixtures/ledger.js"
import { bellOf } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"
import { optIn } from "./inboundKit.js"
import {
  assertRefused,
  clearingBalance,
  credit,
  dataOf,
  PARTNER_NAME,
  partnerPost,
  partnerRead,
  rowsOf,
  SENDER,
  V1,
  writesCommunity
} from "./writesKit.js"

type Item = { readonly id: number; readonly external_id: string } & Record<string, unknown>
type Page = {
  readonly data: ReadonlyArray<Item>
  readonly meta: { readonly per_page: number; readonly cursor?: string; readonly has_more: boolean }
}

const walletOf = (who: { readonly client: ApiClient }) =>
  Effect.map(expectOk(who.client.wallet.get()), (res) => res.data.balance)

/** Ledger transactions written under one idempotency key. */
const ledgerRowsFor = (tenantId: number, key: string) =>
  rowsOf((sql) =>
    sql<{ id: string; type: string; amount: string }>`
      SELECT id, type, amount::text AS amount FROM ledger_transactions
      WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("federation inbound transactions", (it) => {
  describe("POST /transactions", () => {
    it.effect("credits an opted-in member from the partner's clearing account (201), once per external_id", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const before = yield* walletOf(c.member)
        const body = credit(c.member)
        const res = yield* partnerPost("/transactions", c.key, body)
        assert.strictEqual(res.status, 201, JSON.stringify(res.body))
        const created = dataOf<Item>(res)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            external_id: body.external_id,
            recipient_id: c.member.id,
            amount: 2.5,
            description: "Garden help",
            status: "completed",
            sender: SENDER,
            created_at: created["created_at"]
          },
          meta: {}
        })
        assert.match(String(created["created_at"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        // The member's wallet shows a federated credit with no local sender; the clearing account went below zero.
        assert.strictEqual(yield* walletOf(c.member), before + 2.5)
        const history = yield* expectOk(c.member.client.wallet.transactions({ urlParams: {} }))
        assert.deepInclude(history.data[0], {
          type: "federated",
          amount: 2.5,
          sender_id: null,
          recipient_id: c.member.id,
          direction: "in",
          description: "Garden help"
        })
        assert.strictEqual(yield* clearingBalance(c.partner), -2.5)

        // The same body again: 200 with the first transaction, nothing moves.
        const again = yield* partnerPost("/transactions", c.key, body)
        assert.strictEqual(again.status, 200, JSON.stringify(again.body))
        assert.deepStrictEqual(again.body, res.body)
        // Another body with that external_id: 409, nothing moves.
        const other = yield* partnerPost("/transactions", c.key, { ...body, amount: 3 })
        assertRefused(other, 409, "IDEMPOTENCY_CONFLICT", "external_id")
        const otherSender = yield* partnerPost("/transactions", c.key, { ...body, sender: { ...SENDER, name: "X" } })
        assertRefused(otherSender, 409, "IDEMPOTENCY_CONFLICT")
        assert.strictEqual(yield* walletOf(c.member), before + 2.5)
        assert.strictEqual(yield* clearingBalance(c.partner), -2.5)
        const ledger = yield* ledgerRowsFor(c.tenant.id, `federation:${c.partner.id}:${body.external_id}`)
        assert.deepStrictEqual(ledger.map((t) => [t.type, t.amount]), [["federated", "2.50"]])
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

        // The member's bell names the partner's member and the partner (no local sender).
        const [bell] = yield* bellOf(c.member, "transaction_received")
        assert.strictEqual(bell!.title, `Rita Remote (${PARTNER_NAME}) sent you 2.5 credits`)
        assert.strictEqual(bell!.body, "Garden help")
        assert.strictEqual(bell!.actor, null)
      }))

    it.effect("50 identical requests at once credit exactly once: one 201, 49 × 200, one ledger transaction", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const before = yield* walletOf(c.member)
        const body = credit(c.member, { amount: 1.25 })
        const answers = yield* Effect.all(
          Array.from({ length: 50 }, () => partnerPost("/transactions", c.key, body)),
          { concurrency: "unbounded" }
        )
        const statuses = answers.map((a) => a.status).sort((a, b) => a - b)
        assert.deepStrictEqual(statuses, [...Array.from({ length: 49 }, () => 200), 201], JSON.stringify(answers[0]))
        assert.strictEqual(new Set(answers.map((a) => dataOf<Item>(a).id)).size, 1)
        const ledger = yield* ledgerRowsFor(c.tenant.id, `federation:${c.partner.id}:${body.external_id}`)
        assert.strictEqual(ledger.length, 1)
        const rows = yield* rowsOf((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM federation_transactions WHERE partner_id = ${c.partner.id}`
        )
        assert.strictEqual(rows[0]!.n, 1)
        assert.strictEqual(yield* walletOf(c.member), before + 1.25)
        assert.strictEqual(yield* clearingBalance(c.partner), -1.25)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("the partner's credit limit bounds its clearing account: past it is 422 INSUFFICIENT_BALANCE", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity({ settings: { credit_limit: 5 } })
        assert.strictEqual((yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 3 }))).status, 201)
        const past = yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 2.01 }))
        assertRefused(past, 422, "INSUFFICIENT_BALANCE", "amount")
        assert.strictEqual(yield* clearingBalance(c.partner), -3)
        // Down to the limit exactly is allowed.
        assert.strictEqual((yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 2 }))).status, 201)
        assert.strictEqual(yield* clearingBalance(c.partner), -5)
        assertRefused(
          yield* partnerPost("/transactions", c.key, credit(c.other, { amount: 0.01 })),
          404,
          "NOT_FOUND",
          "recipient_id"
        )
        assertRefused(
          yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 0.01 })),
          422,
          "INSUFFICIENT_BALANCE"
        )
        assert.strictEqual(yield* walletOf(c.member), 5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("without settings the credit limit is 100 hours", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        assert.strictEqual((yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 60 }))).status, 201)
        assert.strictEqual((yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 40 }))).status, 201)
        assertRefused(
          yield* partnerPost("/transactions", c.key, credit(c.member, { amount: 0.01 })),
          422,
          "INSUFFICIENT_BALANCE"
        )
        assert.strictEqual(yield* clearingBalance(c.partner), -100)
      }))

    it.effect("recipients: not opted in, inactive, unknown or another community's member → 404", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const elsewhere = yield* community({ signIn: "token" })
        yield* optIn(elsewhere.member)
        for (const id of [c.other.id, elsewhere.member.id, 999_999_999]) {
          assertRefused(
            yield* partnerPost("/transactions", c.key, credit({ id })),
            404,
            "NOT_FOUND",
            "recipient_id"
          )
        }
        yield* rowsOf((sql) => sql`UPDATE users SET status = 'suspended' WHERE id = ${c.member.id}`)
        assertRefused(yield* partnerPost("/transactions", c.key, credit(c.member)), 404, "NOT_FOUND")
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
        assert.strictEqual(yield* walletOf(elsewhere.member), 0)
      }))

    it.effect("bad bodies are 422 per field and move nothing", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
          [{ amount: 0 }, "amount"],
          [{ amount: -1 }, "amount"],
          [{ amount: 1.234 }, "amount"],
          [{ amount: "2" }, "amount"],
          [{ amount: 2_000_000 }, "amount"],
          [{ external_id: "" }, "external_id"],
          [{ external_id: "x".repeat(201) }, "external_id"],
          [{ recipient_id: 0 }, "recipient_id"],
          [{ description: "d".repeat(501) }, "description"],
          [{ sender: { name: "", external_id: "R-1" } }, "sender.name"],
          [{ sender: { name: "Rita" } }, "sender.external_id"]
        ]
        for (const [overrides, field] of cases) {
          assertRefused(
            yield* partnerPost("/transactions", c.key, credit(c.member, overrides)),
            422,
            "VALIDATION_ERROR",
            field
          )
        }
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
      }))

    it.effect("keys: no partner, a pending or suspended partner, or no transactions:write → 403 PERMISSION_DENIED", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const unbound = yield* makeApiKey(c.tenant, { scopes: ["transactions:write"] })
        assertRefused(yield* partnerPost("/transactions", unbound, credit(c.member)), 403, "PERMISSION_DENIED")
        for (const status of ["pending", "suspended", "failed"] as const) {
          const partner = yield* makePartner(c.tenant, { status })
          const key = yield* makeApiKey(c.tenant, { scopes: ["transactions:write"], partnerId: partner.id })
          assertRefused(yield* partnerPost("/transactions", key, credit(c.member)), 403, "PERMISSION_DENIED")
        }
        const readOnly = yield* makeApiKey(c.tenant, { scopes: ["transactions:read"], partnerId: c.partner.id })
        assertRefused(yield* partnerPost("/transactions", readOnly, credit(c.member)), 403, "PERMISSION_DENIED")
        assertRefused(
          yield* federationCall("POST", `${V1}/transactions`, { body: credit(c.member) }),
          401,
          "AUTH_REQUIRED"
        )
        // The toggle off: 503, whatever the key.
        const quiet = yield* community({ signIn: "token" })
        yield* federationOn(quiet.tenant, ["listings"])
        const quietPartner = yield* makePartner(quiet.tenant)
        const quietKey = yield* makeApiKey(quiet.tenant, { scopes: ["transactions:write"], partnerId: quietPartner.id })
        assertRefused(yield* partnerPost("/transactions", quietKey, credit(quiet.member)), 503, "FEDERATION_DISABLED")
        assert.strictEqual(yield* walletOf(c.member), 0)
      }))
  })

  describe("GET /transactions", () => {
    it.effect("lists and reads only the calling partner's transactions, newest first, with a cursor", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const second = yield* makePartner(c.tenant, { name: "Hillside" })
        const secondKey = yield* makeApiKey(c.tenant, {
          scopes: ["transactions:write", "transactions:read"],
          partnerId: second.id
        })
        const mine: Array<Item> = []
        for (const amount of [1, 2, 3]) {
          mine.push(dataOf<Item>(yield* partnerPost("/transactions", c.key, credit(c.member, { amount }))))
        }
        const theirs = dataOf<Item>(yield* partnerPost("/transactions", secondKey, credit(c.member)))

        const first = yield* partnerRead("/transactions?per_page=2", c.key)
        assert.strictEqual(first.status, 200, JSON.stringify(first.body))
        const page1 = first.body as Page
        assert.deepStrictEqual(page1.data.map((t) => t.id), [mine[2]!.id, mine[1]!.id])
        assert.isTrue(page1.meta.has_more)
        const page2 = (yield* partnerRead(`/transactions?per_page=2&cursor=${page1.meta.cursor}`, c.key)).body as Page
        assert.deepStrictEqual(page2.data.map((t) => t.id), [mine[0]!.id])
        assert.deepStrictEqual(page2.meta, { per_page: 2, has_more: false })
        assert.deepStrictEqual(page2.data[0], mine[0])

        const one = yield* partnerRead(`/transactions/${mine[1]!.id}`, c.key)
        assert.strictEqual(one.status, 200)
        assert.deepStrictEqual(dataOf(one), mine[1])
        // Another partner's transaction, an unknown id, a bad id or cursor.
        assertRefused(yield* partnerRead(`/transactions/${theirs.id}`, c.key), 404, "NOT_FOUND")
        assertRefused(yield* partnerRead(`/transactions/${mine[0]!.id}`, secondKey), 404, "NOT_FOUND")
        assertRefused(yield* partnerRead("/transactions/999999999", c.key), 404, "NOT_FOUND")
        assertRefused(yield* partnerRead("/transactions/abc", c.key), 404, "NOT_FOUND")
        assertRefused(yield* partnerRead("/transactions?cursor=not-a-cursor", c.key), 422, "VALIDATION_ERROR", "cursor")
        assertRefused(yield* partnerRead("/transactions?per_page=101", c.key), 422, "VALIDATION_ERROR", "per_page")
        assert.deepStrictEqual(
          ((yield* partnerRead("/transactions", secondKey)).body as Page).data.map((t) => t.id),
          [theirs.id]
        )
        // A key bound to no partner sent nothing; a key without transactions:read is refused.
        const unbound = yield* makeApiKey(c.tenant, { scopes: ["transactions:read"] })
        assert.deepStrictEqual((yield* partnerRead("/transactions", unbound)).body, {
          data: [],
          meta: { per_page: 20, has_more: false }
        })
        assertRefused(yield* partnerRead(`/transactions/${mine[0]!.id}`, unbound), 404, "NOT_FOUND")
        const writeOnly = yield* makeApiKey(c.tenant, { scopes: ["transactions:write"], partnerId: c.partner.id })
        assertRefused(yield* partnerRead("/transactions", writeOnly), 403, "PERMISSION_DENIED")
        // Another community's key sees none of these.
        const elsewhere = yield* writesCommunity()
        assertRefused(yield* partnerRead(`/transactions/${mine[0]!.id}`, elsewhere.key), 404, "NOT_FOUND")
      }))
  })

  describe("cancel (transaction.cancelled)", () => {
    const cancel = (key: TestApiKey, externalId: string) =>
      federationCall("POST", `${V1}/webhooks/receive`, {
        key,
        sign: true,
        body: { id: randomUUID(), event: "transaction.cancelled", data: { external_id: externalId } }
      })

    it.effect("refunds once with a compensating ledger move; the transaction reads cancelled", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const signing = yield* makeApiKey(c.tenant, {
          scopes: ["transactions:read"],
          partnerId: c.partner.id,
          signing: true
        })
        const body = credit(c.member, { amount: 4 })
        const created = dataOf<Item>(yield* partnerPost("/transactions", c.key, body))
        const first = yield* cancel(signing, body.external_id)
        assert.strictEqual(first.status, 200, JSON.stringify(first.body))
        assert.deepStrictEqual(dataOf(first), { received: true, handled: true })
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
        const refund = yield* ledgerRowsFor(c.tenant.id, `federation-refund:${c.partner.id}:${body.external_id}`)
        assert.deepStrictEqual(refund.map((t) => [t.type, t.amount]), [["federated", "4.00"]])
        assert.strictEqual(dataOf(yield* partnerRead(`/transactions/${created.id}`, c.key))["status"], "cancelled")
        // Another webhook naming it refunds nothing more; a replay of the credit answers the cancelled transaction.
        assert.strictEqual((yield* cancel(signing, body.external_id)).status, 200)
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(
          (yield* ledgerRowsFor(c.tenant.id, `federation-refund:${c.partner.id}:${body.external_id}`)).length,
          1
        )
        const replay = yield* partnerPost("/transactions", c.key, body)
        assert.strictEqual(replay.status, 200)
        assert.strictEqual(dataOf(replay)["status"], "cancelled")
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("a member who spent the credits cannot be refunded from: 422, nothing moves", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const signing = yield* makeApiKey(c.tenant, {
          scopes: ["transactions:read"],
          partnerId: c.partner.id,
          signing: true
        })
        const body = credit(c.member, { amount: 3 })
        yield* partnerPost("/transactions", c.key, body)
        yield* expectOk(c.member.client.wallet.transfer({
          headers: {},
          payload: { recipient_id: c.other.id, amount: 2, description: "spent" }
        }))
        assertRefused(yield* cancel(signing, body.external_id), 422, "INSUFFICIENT_BALANCE")
        assert.strictEqual(yield* walletOf(c.member), 1)
        assert.strictEqual(yield* clearingBalance(c.partner), -3)
        // Once the member can pay, the partner's retry refunds.
        yield* fund(c.admin.headers, c.member.id, 2)
        assert.strictEqual((yield* cancel(signing, body.external_id)).status, 200)
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
      }))
  })
})
