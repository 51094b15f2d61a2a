import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, fieldOf } from "./fixtures/bodies.js"
import { balanceOf, countTransactions, fund, transfer, verifyLedger } from "./fixtures/ledger.js"
import { makeListing } from "./fixtures/listings.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeUser } from "./fixtures/users.js"

type Tx = {
  id: number
  amount: number
  sender_id: number | null
  recipient_id: number | null
  type: string
  direction: string
  listing_id: number | null
}

/** A community with an admin and two members, Ann funded with `hours`. */
const community = (hours: number, settings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({ settings: { starting_balance: 0, ...settings } })
    const admin = yield* authHeaders(yield* makeAdmin(tenant))
    const annUser = yield* makeUser(tenant, { firstName: "Ann" })
    const bobUser = yield* makeUser(tenant, { firstName: "Bob" })
    const ann = yield* authHeaders(annUser)
    const bob = yield* authHeaders(bobUser)
    if (hours > 0) yield* fund(admin, annUser.id, hours)
    return { tenant, admin, ann, bob, annId: annUser.id, bobId: bobUser.id, bobUser }
  })

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("wallet and ledger", (it) => {
  describe("transfers", () => {
    it.effect("a transfer moves credits, answers the D5 shape and shows in both histories", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const offer = yield* makeListing(c.bobUser, { title: "Gardening help" })
        const res = yield* transfer(c.ann, {
          recipient_id: c.bobId,
          amount: 2.5,
          description: "Gardening",
          listing_id: offer.id
        })
        assert.strictEqual(res.status, 201)
        const tx = dataOf<Tx & { description: string; created_at: string }>(res.body)
        assert.deepInclude(tx, {
          amount: 2.5,
          sender_id: c.annId,
          recipient_id: c.bobId,
          description: "Gardening",
          type: "transfer",
          direction: "out",
          listing_id: offer.id
        })
        assert.match(tx.created_at, /Z$/)
        assert.strictEqual(yield* balanceOf(c.ann), 7.5)
        assert.strictEqual(yield* balanceOf(c.bob), 2.5)

        const annHistory = yield* rawRequest("GET", "/api/v2/wallet/transactions", { headers: c.ann })
        assert.deepStrictEqual(dataOf<Array<Tx>>(annHistory.body).map((t) => [t.type, t.direction, t.amount]), [
          ["transfer", "out", 2.5],
          ["grant", "in", 10]
        ])
        const bobView = yield* rawRequest("GET", `/api/v2/wallet/transactions/${tx.id}`, { headers: c.bob })
        assert.strictEqual(bobView.status, 200)
        assert.strictEqual(dataOf<Tx>(bobView.body).direction, "in")
        const report = yield* verifyLedger(c.tenant.id)
        assert.isTrue(report.ok)
      }))

    it.effect("bad amounts, oneself, unknown or foreign recipients are refused and write nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const other = yield* makeTenant()
        const stranger = yield* makeUser(other)
        const before = yield* countTransactions(c.tenant.id)
        for (const amount of [0, -1, 1.005, "5", null, 1_000_001]) {
          const res = yield* transfer(c.ann, { recipient_id: c.bobId, amount })
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "amount"],
            String(amount)
          )
        }
        const self = yield* transfer(c.ann, { recipient_id: c.annId, amount: 1 })
        assert.deepStrictEqual([self.status, fieldOf(self.body)], [422, "recipient_id"])
        for (const recipient_id of [987654321, stranger.id]) {
          const res = yield* transfer(c.ann, { recipient_id, amount: 1 })
          assert.deepStrictEqual([res.status, codeOf(res.body)], [404, "NOT_FOUND"])
        }
        const noListing = yield* transfer(c.ann, { recipient_id: c.bobId, amount: 1, listing_id: 987654 })
        assert.deepStrictEqual([noListing.status, fieldOf(noListing.body)], [422, "listing_id"])
        const wrongTypes = yield* transfer(c.ann, { recipient_id: "x", amount: 1, description: 5 })
        assert.strictEqual(wrongTypes.status, 422)
        const tooMuch = yield* transfer(c.ann, { recipient_id: c.bobId, amount: 10.01 })
        assert.deepStrictEqual([tooMuch.status, codeOf(tooMuch.body)], [422, "INSUFFICIENT_BALANCE"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.ann), 10)
      }))

    it.effect("a community that allows negative balances lets members go below zero", () =>
      Effect.gen(function*() {
        const c = yield* community(0, { allow_negative_balance: true })
        const res = yield* transfer(c.ann, { recipient_id: c.bobId, amount: 3 })
        assert.strictEqual(res.status, 201)
        assert.strictEqual(yield* balanceOf(c.ann), -3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("Idempotency-Key: the same request replays the first answer; another request with it is 409", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const key = randomUUID()
        const body = { recipient_id: c.bobId, amount: 1.25, description: "Soup" }
        const first = yield* transfer(c.ann, body, key)
        const again = yield* transfer(c.ann, body, key)
        assert.deepStrictEqual([first.status, again.status], [201, 201])
        assert.deepStrictEqual(again.body, first.body)
        const conflict = yield* transfer(c.ann, { ...body, amount: 2 }, key)
        assert.deepStrictEqual([conflict.status, codeOf(conflict.body)], [409, "IDEMPOTENCY_CONFLICT"])
        // Concurrent duplicates (one batch or several) still pay once.
        const burstKey = randomUUID()
        const burst = yield* Effect.all(
          Array.from({ length: 10 }, () => transfer(c.ann, body, burstKey)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([...new Set(burst.map((r) => r.status))], [201])
        assert.strictEqual(new Set(burst.map((r) => dataOf<Tx>(r.body).id)).size, 1)
        assert.strictEqual(yield* balanceOf(c.ann), 7.5)
        assert.strictEqual(yield* balanceOf(c.bob), 2.5)
      }))
  })

  describe("reading", () => {
    it.effect("history pages with a cursor; another member's or tenant's transaction is 404", () =>
      Effect.gen(function*() {
        const c = yield* community(30)
        for (let i = 1; i <= 7; i++) yield* transfer(c.ann, { recipient_id: c.bobId, amount: i })
        const seen: Array<number> = []
        let cursor: string | undefined
        do {
          const page = yield* rawRequest(
            "GET",
            `/api/v2/wallet/transactions?per_page=3${cursor ? `&cursor=${cursor}` : ""}`,
            {
              headers: c.ann
            }
          )
          const body = page.body as { data: Array<Tx>; meta: { has_more: boolean; cursor?: string } }
          seen.push(...body.data.map((t) => t.amount))
          cursor = body.meta.cursor
          assert.strictEqual(body.meta.has_more, cursor !== undefined)
        } while (cursor)
        assert.deepStrictEqual(seen, [7, 6, 5, 4, 3, 2, 1, 30])

        const other = yield* community(5)
        const foreign = dataOf<Array<Tx>>(
          (yield* rawRequest("GET", "/api/v2/wallet/transactions", { headers: other.ann })).body
        )[0]!
        const carol = yield* authHeaders(yield* makeUser(c.tenant))
        const mine = dataOf<Array<Tx>>(
          (yield* rawRequest("GET", "/api/v2/wallet/transactions", { headers: c.ann })).body
        )[0]!
        for (const [headers, id] of [[carol, mine.id], [c.ann, foreign.id]] as const) {
          const res = yield* rawRequest("GET", `/api/v2/wallet/transactions/${id}`, { headers })
          assert.deepStrictEqual([res.status, codeOf(res.body)], [404, "NOT_FOUND"])
        }
        const bad = yield* rawRequest("GET", "/api/v2/wallet/transactions/abc", { headers: c.ann })
        assert.strictEqual(bad.status, 404)
        const badCursor = yield* rawRequest("GET", "/api/v2/wallet/transactions?cursor=zzz", { headers: c.ann })
        assert.deepStrictEqual([badCursor.status, fieldOf(badCursor.body)], [422, "cursor"])
        for (const path of ["/api/v2/wallet", "/api/v2/wallet/transactions"]) {
          const anonymous = yield* rawRequest("GET", path, { headers: tenantHeaders(c.tenant) })
          assert.strictEqual(anonymous.status, 401)
        }
      }))
  })

  describe("grants", () => {
    it.effect("admins grant from the treasury (201); members get 403; no token 401; another tenant's user 404", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const other = yield* makeTenant()
        const stranger = yield* makeUser(other)
        const grant = (headers: Record<string, string>, user_id: unknown, amount: unknown = 4) =>
          rawRequest("POST", "/api/v2/admin/wallet/grants", {
            headers,
            body: JSON.stringify({ user_id, amount, reason: "Welcome" })
          })
        const ok = yield* grant(c.admin, c.bobId)
        assert.strictEqual(ok.status, 201)
        assert.deepInclude(dataOf<Tx>(ok.body), { type: "grant", amount: 4, sender_id: null, recipient_id: c.bobId })
        assert.strictEqual(yield* balanceOf(c.bob), 4)
        assert.deepStrictEqual([(yield* grant(c.ann, c.bobId)).status, codeOf((yield* grant(c.ann, c.bobId)).body)], [
          403,
          "FORBIDDEN"
        ])
        assert.strictEqual((yield* grant(tenantHeaders(c.tenant), c.bobId)).status, 401)
        assert.strictEqual((yield* grant(c.admin, stranger.id)).status, 404)
        const bad = yield* grant(c.admin, c.bobId, 0.001)
        assert.deepStrictEqual([bad.status, fieldOf(bad.body)], [422, "amount"])
        assert.strictEqual(yield* balanceOf(c.bob), 4)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("the starting balance is granted once, when a member joins without approval or is approved", () =>
      Effect.gen(function*() {
        const open = yield* makeTenant({ settings: { registration_requires_approval: false, starting_balance: 5 } })
        const register = (tenant: { id: number }, email: string) =>
          rawRequest("POST", "/api/v2/auth/register", {
            headers: tenantHeaders(tenant),
            body: JSON.stringify({ email, password: "long enough", first_name: "N", last_name: "M" })
          })
        const waitForBalance = (headers: Record<string, string>, expected: number) =>
          Effect.gen(function*() {
            for (let i = 0; i < 100 && (yield* balanceOf(headers)) !== expected; i++) yield* Effect.sleep("50 millis")
            assert.strictEqual(yield* balanceOf(headers), expected)
          })
        const joined = yield* register(open, "new@example.org")
        assert.strictEqual(joined.status, 201)
        const login = yield* rawRequest("POST", "/api/v2/auth/login", {
          headers: tenantHeaders(open),
          body: JSON.stringify({ email: "new@example.org", password: "long enough" })
        })
        const headers = {
          ...tenantHeaders(open),
          authorization: `Bearer ${(login.body as { access_token: string }).access_token}`
        }
        yield* waitForBalance(headers, 5)

        const gated = yield* makeTenant({ settings: { starting_balance: 3 } })
        const gatedAdmin = yield* authHeaders(yield* makeAdmin(gated))
        const pending = yield* register(gated, "wait@example.org")
        const pendingId = dataOf<{ user: { id: number } }>(pending.body).user.id
        for (let i = 0; i < 2; i++) {
          const approved = yield* rawRequest("POST", `/api/v2/admin/users/${pendingId}/approve`, {
            headers: gatedAdmin
          })
          assert.strictEqual(approved.status, 200)
        }
        const pendingLogin = yield* rawRequest("POST", "/api/v2/auth/login", {
          headers: tenantHeaders(gated),
          body: JSON.stringify({ email: "wait@example.org", password: "long enough" })
        })
        const pendingHeaders = {
          ...tenantHeaders(gated),
          authorization: `Bearer ${(pendingLogin.body as { access_token: string }).access_token}`
        }
        yield* waitForBalance(pendingHeaders, 3)
        yield* Effect.sleep("300 millis")
        assert.strictEqual(yield* balanceOf(pendingHeaders), 3, "approved twice, granted once")
      }))
  })

  describe("invariants", () => {
    it.effect(
      "2,000 concurrent random transfers keep every balance equal to its entries and the ledger zero-sum",
      () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant({ settings: { starting_balance: 0 } })
          const admin = yield* authHeaders(yield* makeAdmin(tenant))
          const members = yield* Effect.all(Array.from({ length: 20 }, () => makeUser(tenant)), { concurrency: 5 })
          const headers = yield* Effect.all(members.map((m) => authHeaders(m)), { concurrency: 5 })
          yield* Effect.all(members.map((m) => fund(admin, m.id, 10)), { concurrency: 5 })
          const pick = () => Math.floor(Math.random() * members.length)
          const results = yield* Effect.all(
            Array.from({ length: 2000 }, () => {
              const from = pick()
              const to = (from + 1 + Math.floor(Math.random() * (members.length - 1))) % members.length
              // Amounts up to 6 hours against balances of ~10: many moves must be refused for balance.
              const amount = Math.round((0.01 + Math.random() * 6) * 100) / 100
              return transfer(headers[from]!, { recipient_id: members[to]!.id, amount })
            }),
            { concurrency: 64 }
          )
          const statuses = results.map((r) => r.status)
          const accepted = statuses.filter((s) => s === 201).length
          const refused = results.filter((r) => r.status === 422 && codeOf(r.body) === "INSUFFICIENT_BALANCE").length
          assert.strictEqual(accepted + refused, 2000, `unexpected statuses: ${[...new Set(statuses)]}`)
          assert.isAbove(refused, 0)
          assert.isAbove(accepted, 0)

          const report = yield* verifyLedger(tenant.id)
          assert.deepStrictEqual(
            [report.unbalancedTransactions, report.balanceMismatches, report.negativeBalances],
            [[], [], []]
          )
          assert.strictEqual(report.transactions, 20 + accepted)
          const balances = yield* Effect.all(headers.map(balanceOf), { concurrency: 5 })
          assert.strictEqual(Math.round(balances.reduce((a, b) => a + b, 0) * 100), 200 * 100)
        }),
      { timeout: 120_000 }
    )

    it.effect("the database refuses edits of history, unbalanced transactions and forbidden negative balances", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const c = yield* community(5)
        // A deferred constraint fails at COMMIT, which the SQL client reports as a defect: count any failure.
        const refused = (statement: Effect.Effect<unknown, unknown>) =>
          Effect.map(Effect.exit(statement), Exit.isFailure)
        assert.isTrue(
          yield* refused(sql`UPDATE ledger_entries SET amount = amount * 2 WHERE tenant_id = ${c.tenant.id}`)
        )
        assert.isTrue(yield* refused(sql`DELETE FROM ledger_transactions WHERE tenant_id = ${c.tenant.id}`))
        assert.isTrue(
          yield* refused(sql.withTransaction(Effect.gen(function*() {
            const [tx] = yield* sql<{ id: string }>`
              INSERT INTO ledger_transactions (tenant_id, type, amount, idempotency_key, request_hash)
              VALUES (${c.tenant.id}, 'adjustment', 1, ${randomUUID()}, 'x') RETURNING id`
            const [account] = yield* sql<{ id: string }>`
              SELECT id FROM ledger_accounts WHERE tenant_id = ${c.tenant.id} AND kind = 'treasury'`
            yield* sql`INSERT INTO ledger_entries (tenant_id, transaction_id, account_id, amount)
                       VALUES (${c.tenant.id}, ${tx!.id}, ${account!.id}, 1)`
          })))
        )
        assert.isTrue(
          yield* refused(
            sql`UPDATE ledger_accounts SET balance = -1 WHERE tenant_id = ${c.tenant.id} AND kind = 'member'`
          )
        )
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))
  })
})
