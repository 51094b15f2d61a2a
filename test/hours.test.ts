import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { LogHours, Tenant } from "@timebank/domain"
import { HourLogId, OpportunityId, OrganisationId, RecordId } from "@timebank/domain"
import { TenantService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf, metaOf } from "./fixtures/bodies.js"
import {
  type ApiClient,
  apiClient,
  expectError,
  expectStatus,
  expectWire,
  ownAddressClient,
  pageCursor,
  statusOf,
  wireClient
} from "./fixtures/client.js"
import { actor } from "./fixtures/community.js"
import { balanceOf, fund, verifyLedger } from "./fixtures/ledger.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"
import {
  depositToOrganisation,
  makeApplication,
  makeHours,
  makeOpportunity,
  makeOrganisation,
  organisationBalance,
  staffedCommunity,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>
type Method = "GET" | "POST" | "PUT"
type Caller = { readonly client: ApiClient }

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const VOLUNTEERING = "/api/v2/volunteering"
const HOURS = `${VOLUNTEERING}/hours`

/** For what the typed client cannot send: odd bodies, ids that are not ids, and exact wire shapes. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const expectRaw = (res: { status: number; text: string; body: unknown }, status: number, code?: string) => {
  assert.strictEqual(res.status, status, res.text)
  if (code !== undefined) assert.strictEqual(codeOf(res.body), code, res.text)
}

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

/** Ledger transactions made for one hour log's auto-payment. */
const autoPayments = (tenant: Tenant, hourLogId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; type: string; amount: string; recipient_id: string }>`
      SELECT id, type, amount, recipient_id FROM ledger_transactions
      WHERE tenant_id = ${tenant.id} AND idempotency_key = ${`autopay:hours:${hourLogId}`}`).pipe(Effect.orDie)

const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

/**
 * The shared community with an active organisation (auto-pay as given): Olga Owner (its creator), Abe Orgadmin (its
 * admin), Pia Plain (a plain member of it), Ada Admin (the community admin, outside it), and Mia Member as the
 * volunteer, with an approved application to its "Food sorting" opportunity.
 */
const community = (options: { readonly autoPay?: boolean; readonly features?: Record<string, boolean> } = {}) =>
  Effect.gen(function*() {
    const c = yield* staffedCommunity({
      organisation: { autoPay: options.autoPay ?? false },
      ...(options.features === undefined ? {} : { features: options.features })
    })
    const opportunity = yield* makeOpportunity(c.organisation, { title: "Food sorting" })
    yield* makeApplication(opportunity, c.member, "approved")
    return { ...c, volunteer: c.member, opportunity }
  })

type Community = Effect.Effect.Success<ReturnType<typeof community>>

/** The volunteer logs hours through the API; returns the created log. */
const logHours = (c: Community, hours: number, payload: Partial<LogHours> = {}) =>
  Effect.map(
    c.volunteer.client.hours.log({
      payload: { organisation_id: c.organisation.id, date: utcDay(-1), hours, description: "Sorted tins", ...payload },
      withResponse: true
    }).pipe(expectStatus(201)),
    (res) => res.data
  )

const review = (id: HourLogId, who: Caller, status: "approved" | "declined") =>
  who.client.hours.review({ path: { id }, payload: { status }, withResponse: true })

/** Gives the owner `hours` from the treasury and deposits them into the organisation's wallet. */
const fundOrganisation = (c: Community, hours: number) =>
  Effect.gen(function*() {
    yield* fund(c.admin.headers, c.owner.id, hours)
    yield* depositToOrganisation(c.owner, c.organisation, hours)
  })

const summary = (user: TestUser, first: string, last: string) => ({
  id: user.id,
  first_name: first,
  last_name: last,
  avatar_url: null
})

/** Another community with an organisation and a pending hour log (for cross-tenant ids). */
const elsewhere = Effect.gen(function*() {
  const tenant = yield* makeTenant()
  const owner = yield* makeUser(tenant)
  const organisation: TestOrganisation = yield* makeOrganisation(owner)
  const opportunity = yield* makeOpportunity(organisation)
  const log = yield* makeHours(organisation, yield* makeUser(tenant), 2, "pending")
  return { tenant, organisation, opportunity, log }
})

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("volunteer hours", (it) => {
  describe("logging", () => {
    it.effect("a volunteer with an approved application logs hours (201 pending, VolHoursLogged); my-hours shows them", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const date = utcDay(0)
        // Raw: the description is trimmed by the server, and the answer must have exactly these fields.
        const res = yield* call("POST", HOURS, c.volunteer.headers, {
          organisation_id: c.organisation.id,
          opportunity_id: c.opportunity.id,
          date,
          hours: 2.75,
          description: "  Sorted tins  "
        })
        expectRaw(res, 201)
        const created = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            organisation: { id: c.organisation.id, name: c.organisation.name },
            opportunity: { id: c.opportunity.id, title: "Food sorting" },
            user: summary(c.volunteer, "Mia", "Member"),
            date,
            hours: 2.75,
            description: "Sorted tins",
            status: "pending",
            created_at: created.created_at,
            reviewed_at: null,
            payment: { status: "none", transaction_id: null, amount: null }
          },
          meta: {}
        })
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolHoursLogged"), [{
          hour_log_id: created.id,
          organisation_id: c.organisation.id,
          opportunity_id: c.opportunity.id,
          user_id: c.volunteer.id,
          date,
          hours: 2.75
        }])
        const volunteer = yield* wireClient(c.volunteer)
        const mine = yield* volunteer.hours.mine({ urlParams: {}, withResponse: true }).pipe(expectWire(200))
        assert.deepStrictEqual(dataOf<Array<unknown>>(mine.body), [dataOf<unknown>(res.body)])
        assert.deepStrictEqual(metaOf(mine.body), { per_page: 20, has_more: false })
        const othersHours = yield* c.plain.client.hours.mine({ urlParams: {} })
        assert.deepStrictEqual(othersHours.data, [])
        // Without an opportunity, and at the edges of the allowed range.
        const bare = yield* logHours(c, 0.25, { date: "2000-01-01" })
        assert.isNull(bare.opportunity)
        yield* logHours(c, 24)
      }))

    it.effect("without an approved application it is 422 on organisation_id; nothing is stored", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const payload = { organisation_id: c.organisation.id, date: utcDay(-2), hours: 1, description: "Helped" }
        // No application at all; a pending one; a declined one.
        yield* c.plain.client.hours.log({ payload }).pipe(expectError(422, "VALIDATION_ERROR"))
        const pending = yield* actor(yield* makeUser(c.tenant))
        yield* makeApplication(c.opportunity, pending, "pending")
        const declined = yield* actor(yield* makeUser(c.tenant))
        yield* makeApplication(c.opportunity, declined, "declined")
        for (const user of [pending, declined]) {
          const failure = yield* user.client.hours.log({ payload }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["organisation_id"])
          assert.match(failure.message, /approved/)
        }
        // An approval for another organisation does not count.
        const second = yield* makeOrganisation(c.owner)
        const failure = yield* c.volunteer.client.hours.log({ payload: { ...payload, organisation_id: second.id } })
          .pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(failure.fields, ["organisation_id"])
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursLogged"), 0)
      }))

    it.effect("date, hours and description are checked: one 422 entry per bad field", () =>
      Effect.gen(function*() {
        const c = yield* community()
        // Raw throughout: bodies the contract refuses, which the typed client would not send.
        const base = { organisation_id: c.organisation.id, date: utcDay(-1), hours: 1, description: "Helped" }
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ date: utcDay(1) }, "date"],
          [{ date: utcDay(400) }, "date"],
          [{ date: "1999-12-31" }, "date"],
          [{ date: "2024-02-30" }, "date"],
          [{ date: "2024-1-5" }, "date"],
          [{ date: "yesterday" }, "date"],
          [{ hours: 0.1 }, "hours"],
          [{ hours: 0.24 }, "hours"],
          [{ hours: 25 }, "hours"],
          [{ hours: 24.01 }, "hours"],
          [{ hours: 1.234 }, "hours"],
          [{ hours: "2" }, "hours"],
          [{ description: "   " }, "description"],
          [{ description: "x".repeat(2001) }, "description"],
          [{ organisation_id: "one" }, "organisation_id"],
          [{ opportunity_id: -3 }, "opportunity_id"]
        ]
        for (const [change, field] of cases) {
          const res = yield* call("POST", HOURS, c.volunteer.headers, { ...base, ...change })
          expectRaw(res, 422, "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field], JSON.stringify(change))
        }
        const all = yield* call("POST", HOURS, c.volunteer.headers, {
          organisation_id: c.organisation.id,
          date: utcDay(2),
          hours: 1.234,
          description: ""
        })
        expectRaw(all, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(all.body), ["date", "hours", "description"])
        const missing = yield* call("POST", HOURS, c.volunteer.headers, {})
        assert.sameMembers(fieldsOf(missing.body), ["organisation_id", "date", "hours", "description"])
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursLogged"), 0)
      }))

    it.effect("an opportunity of another organisation is 422 on opportunity_id (with the application check)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const second = yield* makeOrganisation(c.owner)
        const foreignOpportunity = yield* makeOpportunity(second)
        const payload = { organisation_id: c.organisation.id, date: utcDay(-1), hours: 1, description: "Helped" }
        for (const opportunityId of [foreignOpportunity.id, other.opportunity.id, OpportunityId.make(999_999_999)]) {
          const failure = yield* c.volunteer.client.hours.log({
            payload: { ...payload, opportunity_id: opportunityId }
          })
            .pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["opportunity_id"])
        }
        // Both problems at once are both reported.
        const both = yield* c.plain.client.hours.log({ payload: { ...payload, opportunity_id: foreignOpportunity.id } })
          .pipe(expectError(422, "VALIDATION_ERROR"))
        assert.sameMembers([...both.fields], ["opportunity_id", "organisation_id"])
        // A closed opportunity of the organisation is fine: the work was done before it closed.
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        yield* logHours(c, 1, { opportunity_id: closed.id })
      }))

    it.effect("pending, suspended or foreign organisations are 404; visiting super-admins 403; no token 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const payload = { date: utcDay(-1), hours: 1, description: "Helped" }
        for (const status of ["pending", "suspended"] as const) {
          const organisation = yield* makeOrganisation(c.owner, { status })
          yield* makeApplication(yield* makeOpportunity(organisation), c.volunteer, "approved")
          yield* c.volunteer.client.hours.log({ payload: { ...payload, organisation_id: organisation.id } }).pipe(
            expectError(404, "NOT_FOUND")
          )
        }
        for (const id of [other.organisation.id, OrganisationId.make(999_999_999)]) {
          yield* c.volunteer.client.hours.log({ payload: { ...payload, organisation_id: id } }).pipe(
            expectError(404, "NOT_FOUND")
          )
        }
        const superAdmin = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant))
        const own = { ...payload, organisation_id: c.organisation.id }
        yield* superAdmin.hours.log({ payload: own }).pipe(expectError(403, "FORBIDDEN"))
        yield* c.visitor.client.hours.log({ payload: own }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("my-hours pages newest first to the end; anonymous or foreign tokens are 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const created: Array<number> = []
        for (let i = 0; i < 5; i++) created.push((yield* logHours(c, 1 + i)).id)
        const seen: Array<number> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const res = yield* c.volunteer.client.hours.mine({
            urlParams: { per_page: 2, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
          })
          seen.push(...res.data.map((h) => h.id))
          if (!res.meta.has_more) {
            assert.notProperty(res.meta, "cursor")
            break
          }
          cursor = res.meta.cursor
        }
        assert.deepStrictEqual(seen, [...created].reverse())
        // Raw: a cursor the typed client would not send.
        expectRaw(
          yield* call("GET", `${VOLUNTEERING}/my-hours?cursor=zz!`, c.volunteer.headers),
          422,
          "VALIDATION_ERROR"
        )
        yield* c.visitor.client.hours.mine({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        const foreign = yield* apiClient({ ...c.volunteer.headers, ...tenantHeaders(other.tenant) })
        yield* foreign.hours.mine({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("review and auto-pay", () => {
    it.effect("approval with auto-pay and enough credits pays the volunteer once; the ledger balances", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 10)
        const log = yield* logHours(c, 2.5)
        const res = yield* review(log.id, { client: yield* wireClient(c.orgAdmin) }, "approved").pipe(expectWire(200))
        const view = res.value.data
        assert.strictEqual(view.status, "approved")
        assert.isString(dataOf<{ reviewed_at: unknown }>(res.body).reviewed_at)
        assert.strictEqual(view.payment.status, "paid")
        assert.strictEqual(view.payment.amount, 2.5)
        const payments = yield* autoPayments(c.tenant, log.id)
        assert.lengthOf(payments, 1)
        assert.strictEqual(view.payment.transaction_id, Number(payments[0]!.id))
        assert.deepInclude(payments[0]!, { type: "autopay", amount: "2.50", recipient_id: String(c.volunteer.id) })
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 2.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7.5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolHoursReviewed"), [{
          hour_log_id: log.id,
          organisation_id: c.organisation.id,
          user_id: c.volunteer.id,
          hours: 2.5,
          status: "approved",
          payment_status: "pending",
          reviewed_by: c.orgAdmin.id,
          organisation_name: c.organisation.name
        }])
        // The volunteer sees the payment in their own list and wallet history.
        const mine = yield* c.volunteer.client.hours.mine({ urlParams: {} })
        assert.deepStrictEqual(mine.data[0]!.payment, view.payment)
        const history = yield* c.volunteer.client.wallet.transactions({ urlParams: {} })
        includes(history.data[0], {
          id: view.payment.transaction_id,
          type: "autopay",
          amount: 2.5,
          direction: "in"
        })

        // Approved later again (a retry): 200 with the same view, no second payment.
        const retried = yield* review(log.id, { client: yield* wireClient(c.owner) }, "approved").pipe(expectWire(200))
        assert.deepStrictEqual(dataOf(retried.body), dataOf(res.body))
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 2.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7.5)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 1)
      }))

    it.effect("two approvals sent at once: both 200, one payment, balances moved once", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 10)
        const log = yield* logHours(c, 3)
        const results = yield* Effect.all(
          [review(log.id, c.owner, "approved"), review(log.id, c.orgAdmin, "approved")].map(expectStatus(200)),
          { concurrency: 2 }
        )
        for (const res of results) assert.strictEqual(res.data.payment.status, "paid")
        const payments = yield* autoPayments(c.tenant, log.id)
        assert.lengthOf(payments, 1)
        for (const res of results) assert.strictEqual(res.data.payment.transaction_id, Number(payments[0]!.id))
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 3)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 1)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

        // Many at once on a fresh log: still exactly one payment.
        const next = yield* logHours(c, 1.5)
        const many = yield* Effect.all(
          Array.from(
            { length: 6 },
            (_, i) => statusOf(review(next.id, i % 2 === 0 ? c.owner : c.orgAdmin, "approved"))
          ),
          { concurrency: 6 }
        )
        assert.deepStrictEqual(many, [200, 200, 200, 200, 200, 200])
        assert.lengthOf(yield* autoPayments(c.tenant, next.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 4.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5.5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("an empty wallet: the approval stands with insufficient_balance; after a deposit approving again pays once", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        const log = yield* logHours(c, 2)
        const res = yield* review(log.id, c.owner, "approved").pipe(expectStatus(200))
        assert.strictEqual(res.data.status, "approved")
        assert.deepStrictEqual(res.data.payment, { status: "insufficient_balance", transaction_id: null, amount: null })
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 0)

        // Still short: the retry answers the same.
        yield* fundOrganisation(c, 1)
        const short = yield* review(log.id, c.owner, "approved").pipe(expectStatus(200))
        assert.strictEqual(short.data.payment.status, "insufficient_balance")
        assert.strictEqual(yield* organisationBalance(c.organisation), 1)

        yield* fundOrganisation(c, 4)
        const paid = yield* review(log.id, c.orgAdmin, "approved").pipe(expectStatus(200))
        const payment = paid.data.payment
        assert.strictEqual(payment.status, "paid")
        assert.strictEqual(payment.amount, 2)
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 2)
        assert.strictEqual(yield* organisationBalance(c.organisation), 3)

        const again = yield* review(log.id, c.owner, "approved").pipe(expectStatus(200))
        assert.deepStrictEqual(again.data.payment, payment)
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* organisationBalance(c.organisation), 3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 1)
      }))

    it.effect("a payment left pending by a crash after the approval is made by the next approval", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        // As if the process died between the approval's commit and the ledger call.
        const log = yield* makeHours(c.organisation, c.volunteer, 1.25, "approved")
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql`UPDATE vol_hours SET payment_status = 'pending', reviewed_by = ${c.owner.id} WHERE id = ${log.id}`
        ).pipe(
          Effect.orDie
        )
        const res = yield* review(log.id, c.owner, "approved").pipe(expectStatus(200))
        assert.strictEqual(res.data.payment.status, "paid")
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 1.25)
        assert.strictEqual(yield* organisationBalance(c.organisation), 3.75)
      }))

    it.effect("auto-pay off: approved with payment none and nothing moved; approving again changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: false })
        yield* fundOrganisation(c, 5)
        const log = yield* logHours(c, 2)
        const owner = { client: yield* wireClient(c.owner) }
        const res = yield* review(log.id, owner, "approved").pipe(expectWire(200))
        assert.deepStrictEqual(res.value.data.payment, { status: "none", transaction_id: null, amount: null })
        const again = yield* review(log.id, owner, "approved").pipe(expectWire(200))
        assert.deepStrictEqual(again.body, res.body)
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5)
        // The approved hours count in the organisation's public aggregates.
        const detail = yield* (yield* ownAddressClient(c.visitor)).organisations.get({
          path: { id: c.organisation.id }
        })
        assert.strictEqual(detail.data.total_hours, 2)
      }))

    it.effect("organisation wallets switched off (module org_wallets): an approval pays nothing despite auto-pay", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        const log = yield* logHours(c, 2)
        yield* Effect.flatMap(TenantService, (t) => t.update(c.tenant.id, { modules: { org_wallets: false } }))
        const res = yield* review(log.id, { client: yield* wireClient(c.owner) }, "approved").pipe(expectWire(200))
        assert.deepStrictEqual(res.value.data.payment, { status: "none", transaction_id: null, amount: null })
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* balanceOf(c.volunteer.headers), 0)
        yield* Effect.flatMap(TenantService, (t) => t.update(c.tenant.id, { modules: { org_wallets: true } }))
        assert.strictEqual(yield* organisationBalance(c.organisation), 5)
      }))

    it.effect("decline pays nothing; a review is final (409 ALREADY_REVIEWED), the same decision again is 200", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        const log = yield* logHours(c, 2)
        const declined = yield* review(log.id, { client: yield* wireClient(c.owner) }, "declined").pipe(
          expectWire(200)
        )
        assert.strictEqual(declined.value.data.status, "declined")
        assert.strictEqual(declined.value.data.payment.status, "none")
        const again = yield* review(log.id, { client: yield* wireClient(c.orgAdmin) }, "declined").pipe(
          expectWire(200)
        )
        assert.deepStrictEqual(again.body, declined.body)
        yield* review(log.id, c.owner, "approved").pipe(expectError(409, "ALREADY_REVIEWED"))
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5)

        const approved = yield* logHours(c, 1)
        yield* review(approved.id, c.owner, "approved").pipe(expectStatus(200))
        yield* review(approved.id, c.owner, "declined").pipe(expectError(409, "ALREADY_REVIEWED"))
        const mine = yield* c.volunteer.client.hours.mine({ urlParams: {} })
        assert.deepStrictEqual(
          mine.data.map((h) => [h.id, h.status]),
          [[approved.id, "approved"], [log.id, "declined"]]
        )
        assert.strictEqual(yield* organisationBalance(c.organisation), 4)
        assert.deepStrictEqual(
          (yield* eventsOf(c.tenant, "VolHoursReviewed")).map((e) => [
            e["hour_log_id"],
            e["status"],
            e["organisation_name"]
          ]),
          [[log.id, "declined", c.organisation.name], [approved.id, "approved", c.organisation.name]]
        )
      }))

    it.effect("approving or declining one's own hours is 403, even as the owner", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        const own = yield* makeHours(c.organisation, c.owner, 2, "pending")
        for (const status of ["approved", "declined"] as const) {
          yield* review(own.id, c.owner, status).pipe(expectError(403, "FORBIDDEN"))
        }
        // Another manager may.
        const res = yield* review(own.id, c.orgAdmin, "approved").pipe(expectStatus(200))
        assert.strictEqual(res.data.payment.status, "paid")
        assert.strictEqual(yield* organisationBalance(c.organisation), 3)
      }))

    it.effect("volunteers, plain members, community admins 403; suspended 403; foreign ids 404; bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        const other = yield* elsewhere
        const log = yield* logHours(c, 1)
        for (const who of [c.volunteer, c.plain, c.admin]) {
          yield* review(log.id, who, "approved").pipe(expectError(403, "FORBIDDEN"))
        }
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended", autoPay: true })
        const ofSuspended = yield* makeHours(suspended, c.volunteer, 1, "pending")
        yield* review(ofSuspended.id, c.owner, "approved").pipe(expectError(403, "FORBIDDEN"))
        for (const id of [other.log.id, HourLogId.make(999_999_999)]) {
          yield* review(id, c.owner, "approved").pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: an id and a decision the typed client cannot send.
        expectRaw(yield* call("PUT", `${HOURS}/x`, c.owner.headers, { status: "approved" }), 404, "NOT_FOUND")
        const bad = yield* call("PUT", `${HOURS}/${log.id}`, c.owner.headers, { status: "paid" })
        expectRaw(bad, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(bad.body), ["status"])
        yield* review(log.id, c.visitor, "approved").pipe(expectError(401, "AUTH_REQUIRED"))
        // Still pending and unpaid.
        const mine = yield* c.volunteer.client.hours.mine({ urlParams: {} })
        const stored = mine.data.find((h) => h.id === log.id)
        assert.deepInclude(stored, {
          status: "pending",
          payment: { status: "none", transaction_id: null, amount: null }
        })
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 0)
      }))

    it.effect("a site super-admin may review; with volunteering off every hours route is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const log = yield* logHours(c, 1)
        const superAdmin = { client: yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant)) }
        yield* review(log.id, superAdmin, "approved").pipe(expectStatus(200))

        const off = yield* community({ features: { volunteering: false } })
        const pending = yield* makeHours(off.organisation, off.volunteer, 1, "pending")
        const gated = expectError(403, "FEATURE_DISABLED")
        yield* off.volunteer.client.hours.log({
          payload: { organisation_id: off.organisation.id, date: utcDay(-1), hours: 1, description: "Helped" }
        }).pipe(gated)
        yield* review(pending.id, off.owner, "approved").pipe(gated)
        yield* off.volunteer.client.hours.mine({ urlParams: {} }).pipe(gated)
      }))
  })
})
