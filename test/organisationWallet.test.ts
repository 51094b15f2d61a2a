import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, type ErrorBody, fieldOf, metaOf } from "./fixtures/bodies.js"
import { balanceOf, countTransactions, fund, verifyLedger } from "./fixtures/ledger.js"
import { makeTenant } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import { makeHours, makeMembership, makeOrganisation, type TestOrganisation } from "./fixtures/volunteering.js"

type Headers = Record<string, string>
type Tx = {
  id: number
  type: string
  amount: number
  direction: string
  description: string
  sender_id: number | null
  recipient_id: number | null
}

const ORGANISATIONS = "/api/v2/volunteering/organisations"
const walletPath = (organisation: TestOrganisation) => `${ORGANISATIONS}/${organisation.id}/wallet`

const deposit = (
  organisation: TestOrganisation,
  headers: Headers,
  body: unknown,
  key: string | undefined = randomUUID()
) =>
  rawRequest("POST", `${walletPath(organisation)}/deposit`, {
    headers: key === undefined ? headers : { ...headers, "idempotency-key": key },
    body: JSON.stringify(body)
  })

const setAutoPay = (organisation: TestOrganisation, headers: Headers, body: unknown) =>
  rawRequest("PUT", `${walletPath(organisation)}/auto-pay`, { headers, body: JSON.stringify(body) })

const get = (path: string, headers: Headers) => rawRequest("GET", path, { headers })

/** The organisation wallet's balance as its dashboard shows it. */
const organisationBalance = (organisation: TestOrganisation, headers: Headers) =>
  Effect.map(get(walletPath(organisation), headers), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return dataOf<{ balance: number }>(res.body).balance
  })

/** A community with an admin, and an organisation whose creator holds `hours` in their own wallet. */
const community = (hours: number, settings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({ settings: { starting_balance: 0, ...settings } })
    const admin = yield* authHeaders(yield* makeAdmin(tenant))
    const owner = yield* makeUser(tenant, { firstName: "Olga", lastName: "Owner" })
    const ownerHeaders = yield* authHeaders(owner)
    if (hours > 0) yield* fund(admin, owner.id, hours)
    const organisation = yield* makeOrganisation(owner)
    return { tenant, admin, owner, ownerHeaders, organisation }
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
        const res = yield* deposit(c.organisation, c.ownerHeaders, { amount: 2.5, note: "For the summer" })
        assert.strictEqual(res.status, 200, res.text)
        const result = dataOf<{ balance: number; transaction_id: number }>(res.body)
        assert.deepStrictEqual(Object.keys(result).sort(), ["balance", "transaction_id"])
        assert.strictEqual(result.balance, 2.5)
        assert.isTrue(Number.isInteger(result.transaction_id) && result.transaction_id > 0)

        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 7.5)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 2.5)
        const second = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1.25 })
        assert.strictEqual(dataOf<{ balance: number }>(second.body).balance, 3.75)

        const log = yield* get(`${walletPath(c.organisation)}/transactions`, c.ownerHeaders)
        assert.strictEqual(log.status, 200, log.text)
        const txs = dataOf<Array<Tx>>(log.body)
        assert.deepStrictEqual(txs.map((t) => [t.type, t.direction, t.amount]), [
          ["deposit", "in", 1.25],
          ["deposit", "in", 2.5]
        ])
        assert.deepInclude(txs[1]!, {
          id: result.transaction_id,
          description: "For the summer",
          sender_id: c.owner.id
        })
        assert.strictEqual(txs[0]!.description, "Deposit to organisation wallet")

        // From the depositor's side it is money out.
        const mine = yield* get("/api/v2/wallet/transactions", c.ownerHeaders)
        assert.deepStrictEqual(dataOf<Array<Tx>>(mine.body).map((t) => [t.type, t.direction, t.amount]), [
          ["deposit", "out", 1.25],
          ["deposit", "out", 2.5],
          ["grant", "in", 10]
        ])
        const stats = yield* get(`${ORGANISATIONS}/${c.organisation.id}/stats`, c.ownerHeaders)
        assert.strictEqual(dataOf<{ balance: number }>(stats.body).balance, 3.75)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        // The ledger reports each move on the outbox itself.
        const completed = yield* eventsOf(c.tenant, "TransactionCompleted")
        assert.deepStrictEqual(completed.filter((e) => e.type === "deposit").map((e) => e.amount), [2.5, 1.25])
      }))

    it.effect("an organisation admin deposits from their own wallet", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const adminMember = yield* makeUser(c.tenant)
        yield* makeMembership(c.organisation, adminMember, "admin", "active")
        yield* fund(c.admin, adminMember.id, 4)
        const headers = yield* authHeaders(adminMember)
        const res = yield* deposit(c.organisation, headers, { amount: 4 })
        assert.deepStrictEqual([res.status, dataOf<{ balance: number }>(res.body).balance], [200, 4])
        assert.strictEqual(yield* balanceOf(headers), 0)
      }))

    it.effect("more than the caller holds is 422 INSUFFICIENT_BALANCE and moves nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(1)
        const before = yield* countTransactions(c.tenant.id)
        const res = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1.01 })
        assert.deepStrictEqual([res.status, codeOf(res.body)], [422, "INSUFFICIENT_BALANCE"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 1)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 0)
        const all = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1 })
        assert.strictEqual(all.status, 200, all.text)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 0)
      }))

    it.effect("a community allowing negative balances lets the depositor go below zero, never the wallet", () =>
      Effect.gen(function*() {
        const c = yield* community(0, { allow_negative_balance: true })
        const res = yield* deposit(c.organisation, c.ownerHeaders, { amount: 3 })
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), -3)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("Idempotency-Key: the same body replays the first transaction; another body is 409", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const key = randomUUID()
        const first = yield* deposit(c.organisation, c.ownerHeaders, { amount: 2, note: "Once" }, key)
        const again = yield* deposit(c.organisation, c.ownerHeaders, { amount: 2, note: "Once" }, key)
        assert.deepStrictEqual([first.status, again.status], [200, 200])
        const id = dataOf<{ transaction_id: number }>(first.body).transaction_id
        assert.strictEqual(dataOf<{ transaction_id: number }>(again.body).transaction_id, id)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 8)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 2)

        const before = yield* countTransactions(c.tenant.id)
        for (const body of [{ amount: 3, note: "Once" }, { amount: 2, note: "Twice" }, { amount: 2 }]) {
          const res = yield* deposit(c.organisation, c.ownerHeaders, body, key)
          assert.deepStrictEqual([res.status, codeOf(res.body)], [409, "IDEMPOTENCY_CONFLICT"], JSON.stringify(body))
        }
        // The same key for another organisation is another request too.
        const other = yield* makeOrganisation(c.owner)
        const elsewhere = yield* deposit(other, c.ownerHeaders, { amount: 2, note: "Once" }, key)
        assert.deepStrictEqual([elsewhere.status, codeOf(elsewhere.body)], [409, "IDEMPOTENCY_CONFLICT"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 8)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("bad amounts and notes are 422 VALIDATION_ERROR on their field and move nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(10)
        const before = yield* countTransactions(c.tenant.id)
        for (const amount of [0, -1, 1.234, "x", "5", null, true, 1_000_001]) {
          const res = yield* deposit(c.organisation, c.ownerHeaders, { amount })
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "amount"],
            String(amount)
          )
        }
        const missing = yield* deposit(c.organisation, c.ownerHeaders, { note: "no amount" })
        assert.deepStrictEqual([missing.status, fieldOf(missing.body)], [422, "amount"])
        const longNote = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1, note: "n".repeat(501) })
        assert.deepStrictEqual([longNote.status, fieldOf(longNote.body)], [422, "note"])
        const both = yield* deposit(c.organisation, c.ownerHeaders, { amount: -2, note: 7 })
        assert.strictEqual(both.status, 422)
        assert.deepStrictEqual(
          (both.body as ErrorBody).errors.map((e) => e.field).sort(),
          ["amount", "note"]
        )
        const notJson = yield* rawRequest("POST", `${walletPath(c.organisation)}/deposit`, {
          headers: c.ownerHeaders,
          body: "{amount"
        })
        assert.deepStrictEqual([notJson.status, codeOf(notJson.body)], [400, "INVALID_JSON"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 10)
      }))

    it.effect("a visiting site super-admin reads the wallet but has no wallet here to deposit from (403)", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const superAdmin = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        const read = yield* get(walletPath(c.organisation), superAdmin)
        assert.strictEqual(read.status, 200, read.text)
        const before = yield* countTransactions(c.tenant.id)
        const res = yield* deposit(c.organisation, superAdmin, { amount: 1 })
        assert.deepStrictEqual([res.status, codeOf(res.body)], [403, "FORBIDDEN"])
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 0)
      }))

    it.effect("wrong roles get 403 and another community's organisation 404, with nothing moved", () =>
      Effect.gen(function*() {
        const c = yield* community(5)
        const member = yield* makeUser(c.tenant)
        yield* makeMembership(c.organisation, member, "member", "active")
        yield* fund(c.admin, member.id, 5)
        const memberHeaders = yield* authHeaders(member)
        const refused = yield* deposit(c.organisation, memberHeaders, { amount: 1 })
        assert.deepStrictEqual([refused.status, codeOf(refused.body)], [403, "FORBIDDEN"])
        const communityAdmin = yield* deposit(c.organisation, c.admin, { amount: 1 })
        assert.deepStrictEqual([communityAdmin.status, codeOf(communityAdmin.body)], [403, "FORBIDDEN"])

        const b = yield* community(5)
        const foreign = yield* deposit(c.organisation, b.ownerHeaders, { amount: 1 })
        assert.deepStrictEqual([foreign.status, codeOf(foreign.body)], [404, "NOT_FOUND"])
        const foreignToggle = yield* setAutoPay(c.organisation, b.ownerHeaders, { enabled: true })
        assert.deepStrictEqual([foreignToggle.status, codeOf(foreignToggle.body)], [404, "NOT_FOUND"])
        assert.strictEqual(yield* balanceOf(memberHeaders), 5)
        assert.strictEqual(yield* balanceOf(b.ownerHeaders), 5)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 0)
      }))

    it.effect("a suspended organisation's wallet is readable; deposits and auto-pay changes are 403", () =>
      Effect.gen(function*() {
        const c = yield* community(5)
        yield* deposit(c.organisation, c.ownerHeaders, { amount: 1 })
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE vol_organisations SET status = 'suspended' WHERE id = ${c.organisation.id}`
        ).pipe(Effect.orDie)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 1)
        const log = yield* get(`${walletPath(c.organisation)}/transactions`, c.ownerHeaders)
        assert.strictEqual(dataOf<Array<Tx>>(log.body).length, 1)
        const refused = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1 })
        assert.deepStrictEqual([refused.status, codeOf(refused.body)], [403, "FORBIDDEN"])
        const toggle = yield* setAutoPay(c.organisation, c.ownerHeaders, { enabled: true })
        assert.deepStrictEqual([toggle.status, codeOf(toggle.body)], [403, "FORBIDDEN"])
        assert.strictEqual(yield* balanceOf(c.ownerHeaders), 4)
        assert.strictEqual(yield* organisationBalance(c.organisation, c.ownerHeaders), 1)
        const wallet = yield* get(walletPath(c.organisation), c.ownerHeaders)
        assert.strictEqual(dataOf<{ auto_pay_enabled: boolean }>(wallet.body).auto_pay_enabled, false)
      }))

    it.effect("a pending organisation takes deposits", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant({ settings: { starting_balance: 0 } })
        const admin = yield* authHeaders(yield* makeAdmin(tenant))
        const owner = yield* makeUser(tenant)
        yield* fund(admin, owner.id, 2)
        const organisation = yield* makeOrganisation(owner, { status: "pending" })
        const res = yield* deposit(organisation, yield* authHeaders(owner), { amount: 2 })
        assert.deepStrictEqual([res.status, dataOf<{ balance: number }>(res.body).balance], [200, 2])
      }))
  })

  describe("wallet summary and log", () => {
    it.effect("balance, auto-pay, hours awaiting review and the five newest transactions", () =>
      Effect.gen(function*() {
        const c = yield* community(20)
        const volunteer = yield* makeUser(c.tenant)
        yield* makeHours(c.organisation, volunteer, 1.5, "pending")
        yield* makeHours(c.organisation, volunteer, 2.25, "pending")
        yield* makeHours(c.organisation, volunteer, 4, "approved")
        const ids: Array<number> = []
        for (const amount of [1, 2, 3, 4, 5, 0.5]) {
          const res = yield* deposit(c.organisation, c.ownerHeaders, { amount })
          ids.push(dataOf<{ transaction_id: number }>(res.body).transaction_id)
        }
        const res = yield* get(walletPath(c.organisation), c.ownerHeaders)
        assert.strictEqual(res.status, 200, res.text)
        const wallet = dataOf<{
          balance: number
          auto_pay_enabled: boolean
          pending_hours: number
          recent_transactions: Array<Tx>
        }>(res.body)
        assert.deepInclude(wallet, { balance: 15.5, auto_pay_enabled: false, pending_hours: 3.75 })
        assert.deepStrictEqual(wallet.recent_transactions.map((t) => t.id), ids.slice(1).reverse())
        assert.isTrue(wallet.recent_transactions.every((t) => t.direction === "in" && t.type === "deposit"))

        const empty = yield* makeOrganisation(volunteer)
        const none = yield* get(walletPath(empty), yield* authHeaders(volunteer))
        assert.deepStrictEqual(dataOf(none.body), {
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
          const res = yield* deposit(c.organisation, c.ownerHeaders, { amount: 1 })
          ids.push(dataOf<{ transaction_id: number }>(res.body).transaction_id)
        }
        // A deposit to another organisation never shows here.
        yield* deposit(yield* makeOrganisation(c.owner), c.ownerHeaders, { amount: 1 })
        const seen: Array<number> = []
        const sizes: Array<number> = []
        let cursor: string | undefined
        for (let guard = 0; guard < 10; guard++) {
          const query = `?per_page=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
          const res = yield* get(`${walletPath(c.organisation)}/transactions${query}`, c.ownerHeaders)
          assert.strictEqual(res.status, 200, res.text)
          const page = dataOf<Array<Tx>>(res.body)
          sizes.push(page.length)
          seen.push(...page.map((t) => t.id))
          const meta = metaOf(res.body)
          if (!meta.has_more) {
            assert.notProperty(meta, "cursor")
            break
          }
          cursor = meta.cursor
        }
        assert.deepStrictEqual(sizes, [2, 2, 1])
        assert.deepStrictEqual(seen, [...ids].reverse())
        const bad = yield* get(`${walletPath(c.organisation)}/transactions?cursor=%%%`, c.ownerHeaders)
        // A malformed escape is refused at the edge (400 INVALID_REQUEST on the parameter), before any decoding.
        assert.deepStrictEqual([bad.status, fieldOf(bad.body)], [400, "cursor"])
      }))
  })

  describe("auto-pay", () => {
    it.effect("the toggle persists, shows in stats and wallet, and records each change once", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        const stats = () =>
          Effect.map(
            get(`${ORGANISATIONS}/${c.organisation.id}/stats`, c.ownerHeaders),
            (res) => dataOf<{ auto_pay_enabled: boolean }>(res.body).auto_pay_enabled
          )
        const on = yield* setAutoPay(c.organisation, c.ownerHeaders, { enabled: true })
        assert.deepStrictEqual([on.status, on.body], [200, { data: { auto_pay_enabled: true }, meta: {} }])
        assert.isTrue(yield* stats())
        const again = yield* setAutoPay(c.organisation, c.ownerHeaders, { enabled: true })
        assert.deepStrictEqual(dataOf(again.body), { auto_pay_enabled: true })
        const wallet = yield* get(walletPath(c.organisation), c.ownerHeaders)
        assert.isTrue(dataOf<{ auto_pay_enabled: boolean }>(wallet.body).auto_pay_enabled)
        const off = yield* setAutoPay(c.organisation, c.ownerHeaders, { enabled: false })
        assert.deepStrictEqual(dataOf(off.body), { auto_pay_enabled: false })
        assert.isFalse(yield* stats())
        const events = yield* eventsOf(c.tenant, "OrganisationAutoPayChanged")
        assert.deepStrictEqual(events.map((e) => e.auto_pay_enabled), [true, false])
        assert.deepInclude(events[0]!, { organisation_id: c.organisation.id, changed_by: c.owner.id })
      }))

    it.effect("a non-boolean `enabled` is 422 and changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community(0)
        for (const body of [{ enabled: "yes" }, { enabled: 1 }, { enabled: null }, {}, { enabled: "true" }]) {
          const res = yield* setAutoPay(c.organisation, c.ownerHeaders, body)
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldOf(res.body)],
            [422, "VALIDATION_ERROR", "enabled"],
            JSON.stringify(body)
          )
        }
        const wallet = yield* get(walletPath(c.organisation), c.ownerHeaders)
        assert.isFalse(dataOf<{ auto_pay_enabled: boolean }>(wallet.body).auto_pay_enabled)
      }))
  })
})
