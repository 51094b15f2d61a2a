import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { DepositRequest, Tenant } from "@timebank/domain"
import { TransactionId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, type ErrorBody, fieldOf } from "./fixtures/bodies.js"
import {
  type ApiClient,
  apiClient,
  expectError,
  expectStatus,
  expectWire,
  pageCursor,
  wireClient
} from "./fixtures/client.js"
import { actor } from "./fixtures/community.js"
import { balanceOf, countTransactions, fund, verifyLedger } from "./fixtures/ledger.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import {
  makeHours,
  makeMembership,
  makeOrganisation,
  organisationCommunity,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)
type Caller = { readonly client: ApiClient }

const ORGANISATIONS = "/api/v2/volunteering/organisations"
const walletPath = (organisation: TestOrganisation) => `${ORGANISATIONS}/${organisation.id}/wallet`

const deposit = (organisation: TestOrganisation, who: Caller, payload: DepositRequest, key: string = randomUUID()) =>
  who.client.organisationDashboard.deposit({
    path: { id: organisation.id },
    headers: { "idempotency-key": key },
    payload,
    withResponse: true
  })

/** For bodies the contract refuses, which the typed client would not send. */
const rawDeposit = (organisation: TestOrganisation, headers: Headers, body: unknown) =>
  rawRequest("POST", `${walletPath(organisation)}/deposit`, {
    headers: { ...headers, "idempotency-key": randomUUID() },
    body: JSON.stringify(body)
  })

const setAutoPay = (organisation: TestOrganisation, who: Caller, enabled: boolean) =>
  who.client.organisationDashboard.autoPay({ path: { id: organisation.id }, payload: { enabled }, withResponse: true })

const walletOf = (organisation: TestOrganisation, who: Caller) =>
  Effect.map(who.client.organisationDashboard.wallet({ path: { id: organisation.id } }), (res) => res.data)

/** The organisation wallet's balance as its dashboard shows it. */
const organisationBalance = (organisation: TestOrganisation, who: Caller) =>
  Effect.map(walletOf(organisation, who), (wallet) => wallet.balance)

/** The shared community and an organisation whose creator, Olga Owner, holds `hours` in their own wallet. */
const community = (hours: number, settings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const c = yield* organisationCommunity({ settings: { starting_balance: 0, ...settings } })
    if (hours > 0) yield* fund(c.admin.headers, c.owner.id, hours)
    return c
  })

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    )).pipe(Effect.orDie)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("organisation wallets", (it) => {
  describe("deposit", () => {
    it.effect("moves credits from the caller's wallet into the organisation's, through the ledger", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const res = yield* deposit(c.organisation, { client: yield* wireClient(c.owner) }, {
          amount: 2.5,
          note: "For the summer"
        }).pipe(expectWire(200))
        // On the wire: exactly these fields.
        const result = dataOf<{ balance: number; transaction_id: number }>(res.body)
        assert.deepStrictEqual(Object.keys(result).sort(), ["balance", "transaction_id"])
        assert.strictEqual(result.balance, 2.5)
        assert.isTrue(Number.isInteger(result.transaction_id) && result.transaction_id > 0)

        assert.strictEqual(yield* balanceOf(c.owner.headers), 7.5)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 2.5)
        const second = yield* deposit(c.organisation, c.owner, { amount: 1.25 }).pipe(expectStatus(200))
        assert.strictEqual(second.data.balance, 3.75)

        const log = yield* c.owner.client.organisationDashboard.walletTransactions({
          path: { id: c.organisation.id },
          urlParams: {}
        })
        const txs = log.data
        assert.deepStrictEqual(txs.map((t) => [t.type, t.direction, t.amount]), [
          ["deposit", "in", 1.25],
          ["deposit", "in", 2.5]
        ])
        includes(txs[1], {
          id: result.transaction_id,
          description: "For the summer",
          sender_id: c.owner.id
        })
        assert.strictEqual(txs[0]!.description, "Deposit to organisation wallet")

        // From the depositor's side it is money out.
        const mine = yield* c.owner.client.wallet.transactions({ urlParams: {} })
        assert.deepStrictEqual(mine.data.map((t) => [t.type, t.direction, t.amount]), [
          ["deposit", "out", 1.25],
          ["deposit", "out", 2.5],
          ["grant", "in", 10]
        ])
        const stats = yield* c.owner.client.organisationDashboard.stats({ path: { id: c.organisation.id } })
        assert.strictEqual(stats.data.balance, 3.75)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        // The ledger reports each move on the outbox itself.
        const completed = yield* eventsOf(c.tenant, "TransactionCompleted")
        assert.deepStrictEqual(completed.filter((e) => e.type === "deposit").map((e) => e.amount), [2.5, 1.25])
      }))

    it.effect("an organisation admin deposits from their own wallet", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const adminMember = yield* actor(yield* makeUser(c.tenant))
        yield* makeMembership(c.organisation, adminMember, "admin", "active")
        yield* fund(c.admin.headers, adminMember.id, 4)
        const res = yield* deposit(c.organisation, adminMember, { amount: 4 }).pipe(expectStatus(200))
        assert.strictEqual(res.data.balance, 4)
        assert.strictEqual(yield* balanceOf(adminMember.headers), 0)
      }))

    it.effect("more than the caller holds is 422 INSUFFICIENT_BALANCE and moves nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(1)
        const before = yield* countTransactions(c.tenant.id)
        yield* deposit(c.organisation, c.owner, { amount: 1.01 }).pipe(expectError(422, "INSUFFICIENT_BALANCE"))
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.owner.headers), 1)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 0)
        yield* deposit(c.organisation, c.owner, { amount: 1 }).pipe(expectStatus(200))
        assert.strictEqual(yield* balanceOf(c.owner.headers), 0)
      }))

    it.effect("a community allowing negative balances lets the depositor go below zero, never the wallet", () =>
      Effect.gen(function*() {
        const c = yield* community(0, { allow_negative_balance: true })
        yield* deposit(c.organisation, c.owner, { amount: 3 }).pipe(expectStatus(200))
        assert.strictEqual(yield* balanceOf(c.owner.headers), -3)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("Idempotency-Key: the same body replays the first transaction; another body is 409", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const key = randomUUID()
        const first = yield* deposit(c.organisation, c.owner, { amount: 2, note: "Once" }, key).pipe(expectStatus(200))
        const again = yield* deposit(c.organisation, c.owner, { amount: 2, note: "Once" }, key).pipe(expectStatus(200))
        assert.strictEqual(again.data.transaction_id, first.data.transaction_id)
        assert.strictEqual(yield* balanceOf(c.owner.headers), 8)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 2)

        const before = yield* countTransactions(c.tenant.id)
        for (const payload of [{ amount: 3, note: "Once" }, { amount: 2, note: "Twice" }, { amount: 2 }]) {
          yield* deposit(c.organisation, c.owner, payload, key).pipe(expectError(409, "IDEMPOTENCY_CONFLICT"))
        }
        // The same key for another organisation is another request too.
        const other = yield* makeOrganisation(c.owner)
        yield* deposit(other, c.owner, { amount: 2, note: "Once" }, key).pipe(expectError(409, "IDEMPOTENCY_CONFLICT"))
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.owner.headers), 8)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("bad amounts and notes are 422 VALIDATION_ERROR on their field and move nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const before = yield* countTransactions(c.tenant.id)
        // Raw throughout: bodies the contract refuses, which the typed client would not send.
        for (const amount of [0, -1, 1.234, "x", "5", null, true, 1_000_001]) {
          const res = yield* rawDeposit(c.organisation, c.owner.headers, { amount })
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "amount"],
            String(amount)
          )
        }
        const missing = yield* rawDeposit(c.organisation, c.owner.headers, { note: "no amount" })
        assert.deepStrictEqual([missing.status, fieldOf(missing.body)], [422, "amount"])
        const longNote = yield* rawDeposit(c.organisation, c.owner.headers, { amount: 1, note: "n".repeat(501) })
        assert.deepStrictEqual([longNote.status, fieldOf(longNote.body)], [422, "note"])
        const both = yield* rawDeposit(c.organisation, c.owner.headers, { amount: -2, note: 7 })
        assert.strictEqual(both.status, 422)
        assert.deepStrictEqual(
          (both.body as ErrorBody).errors.map((e) => e.field).sort(),
          ["amount", "note"]
        )
        const notJson = yield* rawRequest("POST", `${walletPath(c.organisation)}/deposit`, {
          headers: c.owner.headers,
          body: "{amount"
        })
        assert.deepStrictEqual([notJson.status, codeOf(notJson.body)], [400, "INVALID_JSON"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.owner.headers), 10)
      }))

    it.effect("a visiting site super-admin reads the wallet but has no wallet here to deposit from (403)", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const superAdmin = { client: yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant)) }
        yield* superAdmin.client.organisationDashboard.wallet({ path: { id: c.organisation.id }, withResponse: true })
          .pipe(expectStatus(200))
        const before = yield* countTransactions(c.tenant.id)
        yield* deposit(c.organisation, superAdmin, { amount: 1 }).pipe(expectError(403, "FORBIDDEN"))
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 0)
      }))

    it.effect("wrong roles get 403 and another community's organisation 404, with nothing moved", () =>
      Effect.gen(function*() {
        const c = yield* community(5)
        const member = yield* actor(yield* makeUser(c.tenant))
        yield* makeMembership(c.organisation, member, "member", "active")
        yield* fund(c.admin.headers, member.id, 5)
        yield* deposit(c.organisation, member, { amount: 1 }).pipe(expectError(403, "FORBIDDEN"))
        yield* deposit(c.organisation, c.admin, { amount: 1 }).pipe(expectError(403, "FORBIDDEN"))

        const b = yield* community(5)
        yield* deposit(c.organisation, b.owner, { amount: 1 }).pipe(expectError(404, "NOT_FOUND"))
        yield* setAutoPay(c.organisation, b.owner, true).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual(yield* balanceOf(member.headers), 5)
        assert.strictEqual(yield* balanceOf(b.owner.headers), 5)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 0)
      }))

    it.effect("a suspended organisation's wallet is readable; deposits and auto-pay changes are 403", () =>
      Effect.gen(function*() {
        const c = yield* community(5)
        yield* deposit(c.organisation, c.owner, { amount: 1 }).pipe(expectStatus(200))
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE vol_organisations SET status = 'suspended' WHERE id = ${c.organisation.id}`
        ).pipe(Effect.orDie)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 1)
        const log = yield* c.owner.client.organisationDashboard.walletTransactions({
          path: { id: c.organisation.id },
          urlParams: {}
        })
        assert.strictEqual(log.data.length, 1)
        yield* deposit(c.organisation, c.owner, { amount: 1 }).pipe(expectError(403, "FORBIDDEN"))
        yield* setAutoPay(c.organisation, c.owner, true).pipe(expectError(403, "FORBIDDEN"))
        assert.strictEqual(yield* balanceOf(c.owner.headers), 4)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.owner), 1)
        assert.strictEqual((yield* walletOf(c.organisation, c.owner)).auto_pay_enabled, false)
      }))

    it.effect("a pending organisation takes deposits", () =>
      Effect.gen(function*() {
        const c = yield* organisationCommunity({ organisation: { status: "pending" } })
        yield* fund(c.admin.headers, c.owner.id, 2)
        const res = yield* deposit(c.organisation, c.owner, { amount: 2 }).pipe(expectStatus(200))
        assert.strictEqual(res.data.balance, 2)
      }))
  })

  describe("wallet summary and log", () => {
    it.effect("balance, auto-pay, hours awaiting review and the five newest transactions", () =>
      Effect.gen(function*() {
        const c = yield* community(20)
        const volunteer = yield* actor(yield* makeUser(c.tenant))
        yield* makeHours(c.organisation, volunteer, 1.5, "pending")
        yield* makeHours(c.organisation, volunteer, 2.25, "pending")
        yield* makeHours(c.organisation, volunteer, 4, "approved")
        const ids: Array<number> = []
        for (const amount of [1, 2, 3, 4, 5, 0.5]) {
          const res = yield* deposit(c.organisation, c.owner, { amount }).pipe(expectStatus(200))
          ids.push(res.data.transaction_id)
        }
        const wallet = yield* walletOf(c.organisation, c.owner)
        assert.deepInclude(wallet, { balance: 15.5, auto_pay_enabled: false, pending_hours: 3.75 })
        assert.deepStrictEqual(wallet.recent_transactions.map((t) => t.id), ids.slice(1).reverse())
        assert.isTrue(wallet.recent_transactions.every((t) => t.direction === "in" && t.type === "deposit"))

        const empty = yield* makeOrganisation(volunteer)
        assert.deepStrictEqual(yield* walletOf(empty, volunteer), {
          balance: 0,
          auto_pay_enabled: false,
          pending_hours: 0,
          recent_transactions: []
        })
      }))

    it.effect("the transaction log pages to its end, newest first, with no duplicates", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const res = yield* deposit(c.organisation, c.owner, { amount: 1 }).pipe(expectStatus(200))
          ids.push(res.data.transaction_id)
        }
        // A deposit to another organisation never shows here.
        yield* deposit(yield* makeOrganisation(c.owner), c.owner, { amount: 1 }).pipe(expectStatus(200))
        const seen: Array<number> = []
        const sizes: Array<number> = []
        let cursor: string | undefined
        for (let guard = 0; guard < 10; guard++) {
          const { data, meta } = yield* c.owner.client.organisationDashboard.walletTransactions({
            path: { id: c.organisation.id },
            urlParams: { per_page: 2, ...(cursor === undefined ? {} : { cursor: pageCursor(TransactionId, cursor) }) }
          })
          sizes.push(data.length)
          seen.push(...data.map((t) => t.id))
          if (!meta.has_more) {
            assert.notProperty(meta, "cursor")
            break
          }
          cursor = meta.cursor
        }
        assert.deepStrictEqual(sizes, [2, 2, 1])
        assert.deepStrictEqual(seen, [...ids].reverse())
        // Raw: a malformed escape is refused at the edge (400 INVALID_REQUEST on the parameter), before any decoding.
        const bad = yield* rawRequest("GET", `${walletPath(c.organisation)}/transactions?cursor=%%%`, {
          headers: c.owner.headers
        })
        assert.deepStrictEqual([bad.status, fieldOf(bad.body)], [400, "cursor"])
      }))
  })

  describe("auto-pay", () => {
    it.effect("the toggle persists, shows in stats and wallet, and records each change once", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const stats = () =>
          Effect.map(
            c.owner.client.organisationDashboard.stats({ path: { id: c.organisation.id } }),
            (res) => res.data.auto_pay_enabled
          )
        const on = yield* setAutoPay(c.organisation, c.owner, true).pipe(expectStatus(200))
        assert.deepStrictEqual(on, { data: { auto_pay_enabled: true }, meta: {} })
        assert.isTrue(yield* stats())
        const again = yield* setAutoPay(c.organisation, c.owner, true).pipe(expectStatus(200))
        assert.deepStrictEqual(again.data, { auto_pay_enabled: true })
        assert.isTrue((yield* walletOf(c.organisation, c.owner)).auto_pay_enabled)
        const off = yield* setAutoPay(c.organisation, c.owner, false).pipe(expectStatus(200))
        assert.deepStrictEqual(off.data, { auto_pay_enabled: false })
        assert.isFalse(yield* stats())
        const events = yield* eventsOf(c.tenant, "OrganisationAutoPayChanged")
        assert.deepStrictEqual(events.map((e) => e.auto_pay_enabled), [true, false])
        assert.deepInclude(events[0]!, { organisation_id: c.organisation.id, changed_by: c.owner.id })
      }))

    it.effect("a non-boolean `enabled` is 422 and changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        // Raw: bodies the contract refuses, which the typed client would not send.
        for (const body of [{ enabled: "yes" }, { enabled: 1 }, { enabled: null }, {}, { enabled: "true" }]) {
          const res = yield* rawRequest("PUT", `${walletPath(c.organisation)}/auto-pay`, {
            headers: c.owner.headers,
            body: JSON.stringify(body)
          })
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "enabled"],
            JSON.stringify(body)
          )
        }
        assert.isFalse((yield* walletOf(c.organisation, c.owner)).auto_pay_enabled)
      }))
  })
})
