import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { TransactionId } from "@timebank/domain"
import { Effect, Either, Exit } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, fieldOf } from "./fixtures/bodies.js"
import { expectError, expectStatus, failureOf, pageCursor } from "./fixtures/client.js"
import { community, makeActor, visitor } from "./fixtures/community.js"
import { balanceOf, countTransactions, fund, pay, transfer, verifyLedger } from "./fixtures/ledger.js"
import { makeListing } from "./fixtures/listings.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeUser } from "./fixtures/users.js"

type Tx = {
  id: number
  amount: number
  sender_id: number | null
  recipient_id: number | null
  type: string
  direction: string
  listing_id: number | null
}

/** A community with an admin and two members, `member` funded with `hours`, `other` with nothing. */
const funded = (hours: number, settings: Record<string, unknown> = {}) =>
  community({ settings: { starting_balance: 0, ...settings }, fund: { member: hours } })

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("wallet and ledger", (it) => {
  describe("transfers", () => {
    it.effect("a transfer moves credits, answers the D5 shape and shows in both histories", () =>
      Effect.gen(function*() {
        const c = yield* funded(10)
        const offer = yield* makeListing(c.other, { title: "Gardening help" })
        // The D5 shape on the wire (created_at in UTC), so raw.
        const res = yield* transfer(c.memberHeaders, {
          recipient_id: c.other.id,
          amount: 2.5,
          description: "Gardening",
          listing_id: offer.id
        })
        assert.strictEqual(res.status, 201)
        const tx = dataOf<Tx & { description: string; created_at: string }>(res.body)
        assert.deepInclude(tx, {
          amount: 2.5,
          sender_id: c.member.id,
          recipient_id: c.other.id,
          description: "Gardening",
          type: "transfer",
          direction: "out",
          listing_id: offer.id
        })
        assert.match(tx.created_at, /Z$/)
        assert.strictEqual(yield* balanceOf(c.memberHeaders), 7.5)
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 2.5)

        const history = yield* c.member.client.wallet.transactions({ urlParams: {} })
        assert.deepStrictEqual(history.data.map((t) => [t.type, t.direction, t.amount]), [
          ["transfer", "out", 2.5],
          ["grant", "in", 10]
        ])
        const otherView = yield* c.other.client.wallet.transaction({
          path: { id: TransactionId.make(tx.id) },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.strictEqual(otherView.data.direction, "in")
        const report = yield* verifyLedger(c.tenant.id)
        assert.isTrue(report.ok)
      }))

    it.effect("bad amounts, oneself, unknown or foreign recipients are refused and write nothing", () =>
      Effect.gen(function*() {
        const c = yield* funded(10)
        const other = yield* makeTenant()
        const stranger = yield* makeUser(other)
        const before = yield* countTransactions(c.tenant.id)
        // Amounts the contract refuses to send: raw.
        for (const amount of [0, -1, 1.005, "5", null, 1_000_001]) {
          const res = yield* transfer(c.memberHeaders, { recipient_id: c.other.id, amount })
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "amount"],
            String(amount)
          )
        }
        const client = c.member.client
        const self = yield* failureOf(pay(client, { recipient_id: c.member.id, amount: 1 }))
        assert.deepStrictEqual([self.status, self.fields[0]], [422, "recipient_id"])
        for (const recipient_id of [987654321, stranger.id]) {
          yield* pay(client, { recipient_id, amount: 1 }).pipe(expectError(404, "NOT_FOUND"))
        }
        const noListing = yield* failureOf(pay(client, { recipient_id: c.other.id, amount: 1, listing_id: 987654 }))
        assert.deepStrictEqual([noListing.status, noListing.fields[0]], [422, "listing_id"])
        const wrongTypes = yield* transfer(c.memberHeaders, { recipient_id: "x", amount: 1, description: 5 })
        assert.strictEqual(wrongTypes.status, 422)
        yield* pay(client, { recipient_id: c.other.id, amount: 10.01 }).pipe(expectError(422, "INSUFFICIENT_BALANCE"))
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.memberHeaders), 10)
      }))

    it.effect("a community that allows negative balances lets members go below zero", () =>
      Effect.gen(function*() {
        const c = yield* funded(0, { allow_negative_balance: true })
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 3 }).pipe(expectStatus(201))
        assert.strictEqual(yield* balanceOf(c.memberHeaders), -3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        // Once the community forbids it, verify names the account still below zero (settings read from tenancy).
        yield* c.admin.client.adminConfig.updateSettings({ payload: { allow_negative_balance: false } })
        const report = yield* verifyLedger(c.tenant.id)
        assert.isFalse(report.ok)
        assert.deepStrictEqual(report.negativeBalances.map((a) => a.balance), ["-3.00"])
      }))

    it.effect("Idempotency-Key: the same request replays the first answer; another request with it is 409", () =>
      Effect.gen(function*() {
        const c = yield* funded(10)
        const client = c.member.client
        const key = randomUUID()
        const body = { recipient_id: c.other.id, amount: 1.25, description: "Soup" }
        const first = yield* pay(client, body, key).pipe(expectStatus(201))
        const again = yield* pay(client, body, key).pipe(expectStatus(201))
        assert.deepStrictEqual(again, first)
        yield* pay(client, { ...body, amount: 2 }, key).pipe(expectError(409, "IDEMPOTENCY_CONFLICT"))
        // Concurrent duplicates (one batch or several) still pay once.
        const burstKey = randomUUID()
        const burst = yield* Effect.all(
          Array.from({ length: 10 }, () => pay(client, body, burstKey).pipe(expectStatus(201))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(burst.map((r) => r.data.id)).size, 1)
        assert.strictEqual(yield* balanceOf(c.memberHeaders), 7.5)
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 2.5)
      }))
  })

  describe("reading", () => {
    it.effect("history pages with a cursor; another member's or tenant's transaction is 404", () =>
      Effect.gen(function*() {
        const c = yield* funded(30)
        const client = c.member.client
        for (let i = 1; i <= 7; i++) yield* pay(client, { recipient_id: c.other.id, amount: i })
        const seen: Array<number> = []
        let cursor: string | undefined
        do {
          const page = yield* client.wallet.transactions({
            urlParams: { per_page: 3, ...(cursor ? { cursor: pageCursor(TransactionId, cursor) } : {}) }
          })
          seen.push(...page.data.map((t) => t.amount))
          cursor = page.meta.cursor
          assert.strictEqual(page.meta.has_more, cursor !== undefined)
        } while (cursor)
        assert.deepStrictEqual(seen, [7, 6, 5, 4, 3, 2, 1, 30])

        const other = yield* funded(5)
        const foreign = (yield* other.member.client.wallet.transactions({ urlParams: {} })).data[0]!
        const carol = yield* makeActor(c.tenant)
        const mine = (yield* client.wallet.transactions({ urlParams: {} })).data[0]!
        for (const [reader, id] of [[carol.client, mine.id], [client, foreign.id]] as const) {
          yield* reader.wallet.transaction({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Ids and cursors the contract cannot express: raw.
        const bad = yield* rawRequest("GET", "/api/v2/wallet/transactions/abc", { headers: c.memberHeaders })
        assert.strictEqual(bad.status, 404)
        const badCursor = yield* rawRequest("GET", "/api/v2/wallet/transactions?cursor=zzz", {
          headers: c.memberHeaders
        })
        assert.deepStrictEqual([badCursor.status, fieldOf(badCursor.body)], [422, "cursor"])
        yield* c.visitor.client.wallet.get().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* c.visitor.client.wallet.transactions({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("grants", () => {
    it.effect("admins grant from the treasury (201); members get 403; no token 401; another tenant's user 404", () =>
      Effect.gen(function*() {
        const c = yield* funded(0)
        const other = yield* makeTenant()
        const stranger = yield* makeUser(other)
        const grant = (client: typeof c.admin.client, user_id: number) =>
          client.adminWallet.grant({
            headers: {},
            payload: { user_id, amount: 4, reason: "Welcome" },
            withResponse: true
          })
        const ok = yield* grant(c.admin.client, c.other.id).pipe(expectStatus(201))
        assert.deepInclude(ok.data, { type: "grant", amount: 4, sender_id: null, recipient_id: c.other.id })
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 4)
        yield* grant(c.member.client, c.other.id).pipe(expectError(403, "FORBIDDEN"))
        yield* grant(c.visitor.client, c.other.id).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* grant(c.admin.client, stranger.id).pipe(expectError(404, "NOT_FOUND"))
        // An amount the contract refuses to send: raw.
        const bad = yield* rawRequest("POST", "/api/v2/admin/wallet/grants", {
          headers: c.adminHeaders,
          body: JSON.stringify({ user_id: c.other.id, amount: 0.001, reason: "Welcome" })
        })
        assert.deepStrictEqual([bad.status, fieldOf(bad.body)], [422, "amount"])
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 4)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("the starting balance is granted once, when a member joins without approval or is approved", () =>
      Effect.gen(function*() {
        const open = yield* makeTenant({ settings: { registration_requires_approval: false, starting_balance: 5 } })
        const register = (tenant: { id: number }, email: string) =>
          Effect.flatMap(visitor(tenant), ({ client }) =>
            client.auth.register({
              payload: { email, password: "long enough", first_name: "N", last_name: "M" },
              withResponse: true
            }).pipe(expectStatus(201)))
        const logIn = (tenant: { id: number }, email: string) =>
          Effect.flatMap(
            visitor(tenant),
            ({ client }) => client.auth.login({ payload: { email, password: "long enough" } })
          )
        const waitForBalance = (headers: Record<string, string>, expected: number) =>
          Effect.gen(function*() {
            for (let i = 0; i < 100 && (yield* balanceOf(headers)) !== expected; i++) yield* Effect.sleep("50 millis")
            assert.strictEqual(yield* balanceOf(headers), expected)
          })
        yield* register(open, "new@example.org")
        const login = yield* logIn(open, "new@example.org")
        const headers = { ...tenantHeaders(open), authorization: `Bearer ${login.access_token}` }
        yield* waitForBalance(headers, 5)

        const gated = yield* makeTenant({ settings: { starting_balance: 3 } })
        const gatedAdmin = yield* makeActor(gated, { role: "admin" })
        const pending = yield* register(gated, "wait@example.org")
        for (let i = 0; i < 2; i++) {
          yield* gatedAdmin.client.adminUsers.approve({ path: { id: pending.data.user.id }, withResponse: true }).pipe(
            expectStatus(200)
          )
        }
        const pendingLogin = yield* logIn(gated, "wait@example.org")
        const pendingHeaders = { ...tenantHeaders(gated), authorization: `Bearer ${pendingLogin.access_token}` }
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
          const c = yield* community({ settings: { starting_balance: 0 }, members: 20 })
          const { members, tenant } = c
          yield* Effect.all(members.map((m) => fund(c.adminHeaders, m.id, 10)), { concurrency: 5 })
          const pick = () => Math.floor(Math.random() * members.length)
          const results = yield* Effect.all(
            Array.from({ length: 2000 }, () => {
              const from = pick()
              const to = (from + 1 + Math.floor(Math.random() * (members.length - 1))) % members.length
              // Amounts up to 6 hours against balances of ~10: many moves must be refused for balance.
              const amount = Math.round((0.01 + Math.random() * 6) * 100) / 100
              return Effect.either(pay(members[from]!.client, { recipient_id: members[to]!.id, amount }))
            }),
            { concurrency: 64 }
          )
          // A decoded InsufficientBalance came from a 422 INSUFFICIENT_BALANCE (the client decodes by status).
          const outcomes = results.map(Either.match({
            onLeft: (error) => "_tag" in error ? error._tag : String(error),
            onRight: ([, response]) => String(response.status)
          }))
          const accepted = outcomes.filter((o) => o === "201").length
          const refused = outcomes.filter((o) => o === "InsufficientBalance").length
          assert.strictEqual(accepted + refused, 2000, `unexpected outcomes: ${[...new Set(outcomes)]}`)
          assert.isAbove(refused, 0)
          assert.isAbove(accepted, 0)

          const report = yield* verifyLedger(tenant.id)
          assert.deepStrictEqual(
            [report.unbalancedTransactions, report.balanceMismatches, report.negativeBalances],
            [[], [], []]
          )
          assert.strictEqual(report.transactions, 20 + accepted)
          const balances = yield* Effect.all(members.map((m) => balanceOf(m.headers)), { concurrency: 5 })
          assert.strictEqual(Math.round(balances.reduce((a, b) => a + b, 0) * 100), 200 * 100)
        }),
      { timeout: 120_000 }
    )

    it.effect("the database refuses edits of history, unbalanced transactions and forbidden negative balances", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const c = yield* funded(5)
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
