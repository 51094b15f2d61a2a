import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf, metaOf } from "./fixtures/bodies.js"
import { balanceOf, fund, verifyLedger } from "./fixtures/ledger.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"
import {
  depositToOrganisation,
  makeApplication,
  makeHours,
  makeMembership,
  makeOpportunity,
  makeOrganisation,
  organisationBalance,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>
type Method = "GET" | "POST" | "PUT"
type Payment = { status: string; transaction_id: number | null; amount: number | null }
type HourLogView = { id: number; status: string; payment: Payment; reviewed_at: string | null }

const VOLUNTEERING = "/api/v2/volunteering"
const HOURS = `${VOLUNTEERING}/hours`

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const expectStatus = (res: { status: number; text: string; body: unknown }, status: number, code?: string) => {
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
 * A community with an active organisation (auto-pay as given): its creator (owner), an organisation admin, a plain
 * organisation member, a community admin outside the organisation, and a volunteer with an approved application.
 */
const community = (options: { readonly autoPay?: boolean; readonly features?: Record<string, boolean> } = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({
      settings: { starting_balance: 0 },
      ...(options.features === undefined ? {} : { features: options.features })
    })
    const owner = yield* makeUser(tenant, { firstName: "Olga", lastName: "Owner" })
    const orgAdmin = yield* makeUser(tenant, { firstName: "Abe", lastName: "Orgadmin" })
    const plain = yield* makeUser(tenant, { firstName: "Pia", lastName: "Plain" })
    const admin = yield* makeAdmin(tenant, { firstName: "Ada", lastName: "Admin" })
    const volunteer = yield* makeUser(tenant, { firstName: "Vic", lastName: "Volunteer" })
    const organisation = yield* makeOrganisation(owner, { autoPay: options.autoPay ?? false })
    yield* makeMembership(organisation, orgAdmin, "admin")
    yield* makeMembership(organisation, plain, "member")
    const opportunity = yield* makeOpportunity(organisation, { title: "Food sorting" })
    yield* makeApplication(opportunity, volunteer, "approved")
    const [ownerH, orgAdminH, plainH, adminH, volunteerH] = yield* Effect.all(
      [owner, orgAdmin, plain, admin, volunteer].map((user) => authHeaders(user)),
      { concurrency: 5 }
    )
    return {
      tenant,
      owner,
      orgAdmin,
      plain,
      admin,
      volunteer,
      organisation,
      opportunity,
      ownerH: ownerH!,
      orgAdminH: orgAdminH!,
      plainH: plainH!,
      adminH: adminH!,
      volunteerH: volunteerH!,
      adminHeaders: adminH!,
      anonymous: tenantHeaders(tenant)
    }
  })

type Community = Effect.Effect.Success<ReturnType<typeof community>>

/** The volunteer logs hours through the API; returns the created log. */
const logHours = (c: Community, hours: number, body: Record<string, unknown> = {}) =>
  Effect.map(
    call("POST", HOURS, c.volunteerH, {
      organisation_id: c.organisation.id,
      date: utcDay(-1),
      hours,
      description: "Sorted tins",
      ...body
    }),
    (res) => {
      expectStatus(res, 201)
      return dataOf<HourLogView>(res.body)
    }
  )

const review = (id: number, headers: Headers, status: "approved" | "declined") =>
  call("PUT", `${HOURS}/${id}`, headers, { status })

/** Gives the owner `hours` from the treasury and deposits them into the organisation's wallet. */
const fundOrganisation = (c: Community, hours: number) =>
  Effect.gen(function*() {
    yield* fund(c.adminHeaders, c.owner.id, hours)
    yield* depositToOrganisation(c.ownerH, c.organisation, hours)
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
        const res = yield* call("POST", HOURS, c.volunteerH, {
          organisation_id: c.organisation.id,
          opportunity_id: c.opportunity.id,
          date,
          hours: 2.75,
          description: "  Sorted tins  "
        })
        expectStatus(res, 201)
        const created = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            organisation: { id: c.organisation.id, name: c.organisation.name },
            opportunity: { id: c.opportunity.id, title: "Food sorting" },
            user: summary(c.volunteer, "Vic", "Volunteer"),
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
        const mine = yield* call("GET", `${VOLUNTEERING}/my-hours`, c.volunteerH)
        expectStatus(mine, 200)
        assert.deepStrictEqual(dataOf<Array<unknown>>(mine.body), [dataOf<unknown>(res.body)])
        assert.deepStrictEqual(metaOf(mine.body), { per_page: 20, has_more: false })
        const othersHours = yield* call("GET", `${VOLUNTEERING}/my-hours`, c.plainH)
        assert.deepStrictEqual(dataOf<Array<unknown>>(othersHours.body), [])
        // Without an opportunity, and at the edges of the allowed range.
        const bare = yield* logHours(c, 0.25, { date: "2000-01-01" })
        assert.isNull((bare as unknown as { opportunity: unknown }).opportunity)
        yield* logHours(c, 24)
      }))

    it.effect("without an approved application it is 422 on organisation_id; nothing is stored", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const body = { organisation_id: c.organisation.id, date: utcDay(-2), hours: 1, description: "Helped" }
        // No application at all; a pending one; a declined one.
        expectStatus(yield* call("POST", HOURS, c.plainH, body), 422, "VALIDATION_ERROR")
        const pending = yield* makeUser(c.tenant)
        yield* makeApplication(c.opportunity, pending, "pending")
        const declined = yield* makeUser(c.tenant)
        yield* makeApplication(c.opportunity, declined, "declined")
        for (const user of [pending, declined]) {
          const res = yield* call("POST", HOURS, yield* authHeaders(user), body)
          expectStatus(res, 422, "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), ["organisation_id"])
          assert.match(errorsOf(res.body)[0]!.message, /approved/)
        }
        // An approval for another organisation does not count.
        const second = yield* makeOrganisation(c.owner)
        const res = yield* call("POST", HOURS, c.volunteerH, { ...body, organisation_id: second.id })
        expectStatus(res, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(res.body), ["organisation_id"])
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursLogged"), 0)
      }))

    it.effect("date, hours and description are checked: one 422 entry per bad field", () =>
      Effect.gen(function*() {
        const c = yield* community()
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
          const res = yield* call("POST", HOURS, c.volunteerH, { ...base, ...change })
          expectStatus(res, 422, "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field], JSON.stringify(change))
        }
        const all = yield* call("POST", HOURS, c.volunteerH, {
          organisation_id: c.organisation.id,
          date: utcDay(2),
          hours: 1.234,
          description: ""
        })
        expectStatus(all, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(all.body), ["date", "hours", "description"])
        const missing = yield* call("POST", HOURS, c.volunteerH, {})
        assert.sameMembers(fieldsOf(missing.body), ["organisation_id", "date", "hours", "description"])
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursLogged"), 0)
      }))

    it.effect("an opportunity of another organisation is 422 on opportunity_id (with the application check)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const second = yield* makeOrganisation(c.owner)
        const foreignOpportunity = yield* makeOpportunity(second)
        const body = { organisation_id: c.organisation.id, date: utcDay(-1), hours: 1, description: "Helped" }
        for (const opportunityId of [foreignOpportunity.id, other.opportunity.id, 999_999_999]) {
          const res = yield* call("POST", HOURS, c.volunteerH, { ...body, opportunity_id: opportunityId })
          expectStatus(res, 422, "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), ["opportunity_id"])
        }
        // Both problems at once are both reported.
        const res = yield* call("POST", HOURS, c.plainH, { ...body, opportunity_id: foreignOpportunity.id })
        assert.sameMembers(fieldsOf(res.body), ["opportunity_id", "organisation_id"])
        // A closed opportunity of the organisation is fine: the work was done before it closed.
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        yield* logHours(c, 1, { opportunity_id: closed.id })
      }))

    it.effect("pending, suspended or foreign organisations are 404; visiting super-admins 403; no token 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const body = { date: utcDay(-1), hours: 1, description: "Helped" }
        for (const status of ["pending", "suspended"] as const) {
          const organisation = yield* makeOrganisation(c.owner, { status })
          yield* makeApplication(yield* makeOpportunity(organisation), c.volunteer, "approved")
          const res = yield* call("POST", HOURS, c.volunteerH, { ...body, organisation_id: organisation.id })
          expectStatus(res, 404, "NOT_FOUND")
        }
        for (const id of [other.organisation.id, 999_999_999]) {
          expectStatus(yield* call("POST", HOURS, c.volunteerH, { ...body, organisation_id: id }), 404, "NOT_FOUND")
        }
        const superAdmin = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        const payload = { ...body, organisation_id: c.organisation.id }
        expectStatus(yield* call("POST", HOURS, superAdmin, payload), 403, "FORBIDDEN")
        expectStatus(yield* call("POST", HOURS, c.anonymous, payload), 401, "AUTH_REQUIRED")
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
          const query = `?per_page=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
          const res = yield* call("GET", `${VOLUNTEERING}/my-hours${query}`, c.volunteerH)
          expectStatus(res, 200)
          seen.push(...dataOf<Array<{ id: number }>>(res.body).map((h) => h.id))
          const meta = metaOf(res.body)
          if (!meta.has_more) {
            assert.notProperty(meta, "cursor")
            break
          }
          cursor = meta.cursor
        }
        assert.deepStrictEqual(seen, [...created].reverse())
        expectStatus(yield* call("GET", `${VOLUNTEERING}/my-hours?cursor=zz!`, c.volunteerH), 422, "VALIDATION_ERROR")
        expectStatus(yield* call("GET", `${VOLUNTEERING}/my-hours`, c.anonymous), 401, "AUTH_REQUIRED")
        const foreign = { ...c.volunteerH, ...tenantHeaders(other.tenant) }
        expectStatus(yield* call("GET", `${VOLUNTEERING}/my-hours`, foreign), 401, "AUTH_REQUIRED")
      }))
  })

  describe("review and auto-pay", () => {
    it.effect("approval with auto-pay and enough credits pays the volunteer once; the ledger balances", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 10)
        const log = yield* logHours(c, 2.5)
        const res = yield* review(log.id, c.orgAdminH, "approved")
        expectStatus(res, 200)
        const view = dataOf<HourLogView>(res.body)
        assert.strictEqual(view.status, "approved")
        assert.isString(view.reviewed_at)
        assert.strictEqual(view.payment.status, "paid")
        assert.strictEqual(view.payment.amount, 2.5)
        const payments = yield* autoPayments(c.tenant, log.id)
        assert.lengthOf(payments, 1)
        assert.strictEqual(view.payment.transaction_id, Number(payments[0]!.id))
        assert.deepInclude(payments[0]!, { type: "autopay", amount: "2.50", recipient_id: String(c.volunteer.id) })
        assert.strictEqual(yield* balanceOf(c.volunteerH), 2.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7.5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolHoursReviewed"), [{
          hour_log_id: log.id,
          organisation_id: c.organisation.id,
          user_id: c.volunteer.id,
          hours: 2.5,
          status: "approved",
          payment_status: "pending",
          reviewed_by: c.orgAdmin.id
        }])
        // The volunteer sees the payment in their own list and wallet history.
        const mine = yield* call("GET", `${VOLUNTEERING}/my-hours`, c.volunteerH)
        assert.deepStrictEqual(dataOf<Array<HourLogView>>(mine.body)[0]!.payment, view.payment)
        const history = yield* call("GET", "/api/v2/wallet/transactions", c.volunteerH)
        assert.deepInclude(dataOf<Array<Record<string, unknown>>>(history.body)[0]!, {
          id: view.payment.transaction_id,
          type: "autopay",
          amount: 2.5,
          direction: "in"
        })

        // Approved later again (a retry): 200 with the same view, no second payment.
        const retried = yield* review(log.id, c.ownerH, "approved")
        expectStatus(retried, 200)
        assert.deepStrictEqual(dataOf(retried.body), dataOf(res.body))
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 2.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7.5)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 1)
      }))

    it.effect("two approvals sent at once: both 200, one payment, balances moved once", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 10)
        const log = yield* logHours(c, 3)
        const results = yield* Effect.all(
          [review(log.id, c.ownerH, "approved"), review(log.id, c.orgAdminH, "approved")],
          { concurrency: 2 }
        )
        for (const res of results) {
          expectStatus(res, 200)
          assert.strictEqual(dataOf<HourLogView>(res.body).payment.status, "paid")
        }
        const payments = yield* autoPayments(c.tenant, log.id)
        assert.lengthOf(payments, 1)
        for (const res of results) {
          assert.strictEqual(dataOf<HourLogView>(res.body).payment.transaction_id, Number(payments[0]!.id))
        }
        assert.strictEqual(yield* balanceOf(c.volunteerH), 3)
        assert.strictEqual(yield* organisationBalance(c.organisation), 7)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolHoursReviewed"), 1)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

        // Many at once on a fresh log: still exactly one payment.
        const next = yield* logHours(c, 1.5)
        const many = yield* Effect.all(
          Array.from({ length: 6 }, (_, i) => review(next.id, i % 2 === 0 ? c.ownerH : c.orgAdminH, "approved")),
          { concurrency: 6 }
        )
        assert.deepStrictEqual(many.map((r) => r.status), [200, 200, 200, 200, 200, 200])
        assert.lengthOf(yield* autoPayments(c.tenant, next.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 4.5)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5.5)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("an empty wallet: the approval stands with insufficient_balance; after a deposit approving again pays once", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        const log = yield* logHours(c, 2)
        const res = yield* review(log.id, c.ownerH, "approved")
        expectStatus(res, 200)
        const view = dataOf<HourLogView>(res.body)
        assert.strictEqual(view.status, "approved")
        assert.deepStrictEqual(view.payment, { status: "insufficient_balance", transaction_id: null, amount: null })
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 0)

        // Still short: the retry answers the same.
        yield* fundOrganisation(c, 1)
        const short = yield* review(log.id, c.ownerH, "approved")
        expectStatus(short, 200)
        assert.strictEqual(dataOf<HourLogView>(short.body).payment.status, "insufficient_balance")
        assert.strictEqual(yield* organisationBalance(c.organisation), 1)

        yield* fundOrganisation(c, 4)
        const paid = yield* review(log.id, c.orgAdminH, "approved")
        expectStatus(paid, 200)
        const payment = dataOf<HourLogView>(paid.body).payment
        assert.strictEqual(payment.status, "paid")
        assert.strictEqual(payment.amount, 2)
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 2)
        assert.strictEqual(yield* organisationBalance(c.organisation), 3)

        const again = yield* review(log.id, c.ownerH, "approved")
        assert.deepStrictEqual(dataOf<HourLogView>(again.body).payment, payment)
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
        const res = yield* review(log.id, c.ownerH, "approved")
        expectStatus(res, 200)
        assert.strictEqual(dataOf<HourLogView>(res.body).payment.status, "paid")
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 1)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 1.25)
        assert.strictEqual(yield* organisationBalance(c.organisation), 3.75)
      }))

    it.effect("auto-pay off: approved with payment none and nothing moved; approving again changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: false })
        yield* fundOrganisation(c, 5)
        const log = yield* logHours(c, 2)
        const res = yield* review(log.id, c.ownerH, "approved")
        expectStatus(res, 200)
        assert.deepStrictEqual(dataOf<HourLogView>(res.body).payment, {
          status: "none",
          transaction_id: null,
          amount: null
        })
        const again = yield* review(log.id, c.ownerH, "approved")
        assert.deepStrictEqual(again.body, res.body)
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* balanceOf(c.volunteerH), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5)
        // The approved hours count in the organisation's public aggregates.
        const detail = yield* call("GET", `${VOLUNTEERING}/organisations/${c.organisation.id}`, c.anonymous)
        assert.strictEqual(dataOf<{ total_hours: number }>(detail.body).total_hours, 2)
      }))

    it.effect("decline pays nothing; a review is final (409 ALREADY_REVIEWED), the same decision again is 200", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        const log = yield* logHours(c, 2)
        const declined = yield* review(log.id, c.ownerH, "declined")
        expectStatus(declined, 200)
        const view = dataOf<HourLogView>(declined.body)
        assert.strictEqual(view.status, "declined")
        assert.strictEqual(view.payment.status, "none")
        const again = yield* review(log.id, c.orgAdminH, "declined")
        expectStatus(again, 200)
        assert.deepStrictEqual(again.body, declined.body)
        expectStatus(yield* review(log.id, c.ownerH, "approved"), 409, "ALREADY_REVIEWED")
        assert.lengthOf(yield* autoPayments(c.tenant, log.id), 0)
        assert.strictEqual(yield* organisationBalance(c.organisation), 5)

        const approved = yield* logHours(c, 1)
        expectStatus(yield* review(approved.id, c.ownerH, "approved"), 200)
        expectStatus(yield* review(approved.id, c.ownerH, "declined"), 409, "ALREADY_REVIEWED")
        const mine = yield* call("GET", `${VOLUNTEERING}/my-hours`, c.volunteerH)
        assert.deepStrictEqual(
          dataOf<Array<{ id: number; status: string }>>(mine.body).map((h) => [h.id, h.status]),
          [[approved.id, "approved"], [log.id, "declined"]]
        )
        assert.strictEqual(yield* organisationBalance(c.organisation), 4)
        assert.deepStrictEqual(
          (yield* eventsOf(c.tenant, "VolHoursReviewed")).map((e) => [e["hour_log_id"], e["status"]]),
          [[log.id, "declined"], [approved.id, "approved"]]
        )
      }))

    it.effect("approving or declining one's own hours is 403, even as the owner", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        yield* fundOrganisation(c, 5)
        const own = yield* makeHours(c.organisation, c.owner, 2, "pending")
        for (const status of ["approved", "declined"] as const) {
          expectStatus(yield* review(own.id, c.ownerH, status), 403, "FORBIDDEN")
        }
        // Another manager may.
        const res = yield* review(own.id, c.orgAdminH, "approved")
        expectStatus(res, 200)
        assert.strictEqual(dataOf<HourLogView>(res.body).payment.status, "paid")
        assert.strictEqual(yield* organisationBalance(c.organisation), 3)
      }))

    it.effect("volunteers, plain members, community admins 403; suspended 403; foreign ids 404; bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community({ autoPay: true })
        const other = yield* elsewhere
        const log = yield* logHours(c, 1)
        for (const headers of [c.volunteerH, c.plainH, c.adminH]) {
          expectStatus(yield* review(log.id, headers, "approved"), 403, "FORBIDDEN")
        }
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended", autoPay: true })
        const ofSuspended = yield* makeHours(suspended, c.volunteer, 1, "pending")
        expectStatus(yield* review(ofSuspended.id, c.ownerH, "approved"), 403, "FORBIDDEN")
        for (const id of [other.log.id, 999_999_999, "x"]) {
          expectStatus(
            yield* call("PUT", `${HOURS}/${id}`, c.ownerH, { status: "approved" }),
            404,
            "NOT_FOUND"
          )
        }
        const bad = yield* call("PUT", `${HOURS}/${log.id}`, c.ownerH, { status: "paid" })
        expectStatus(bad, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(bad.body), ["status"])
        expectStatus(yield* review(log.id, c.anonymous, "approved"), 401, "AUTH_REQUIRED")
        // Still pending and unpaid.
        const mine = yield* call("GET", `${VOLUNTEERING}/my-hours`, c.volunteerH)
        const stored = dataOf<Array<HourLogView>>(mine.body).find((h) => h.id === log.id)
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
        const superAdmin = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        expectStatus(yield* review(log.id, superAdmin, "approved"), 200)

        const off = yield* community({ features: { volunteering: false } })
        const pending = yield* makeHours(off.organisation, off.volunteer, 1, "pending")
        const routes: Array<[Method, string, Headers, unknown?]> = [
          ["POST", HOURS, off.volunteerH, {
            organisation_id: off.organisation.id,
            date: utcDay(-1),
            hours: 1,
            description: "Helped"
          }],
          ["PUT", `${HOURS}/${pending.id}`, off.ownerH, { status: "approved" }],
          ["GET", `${VOLUNTEERING}/my-hours`, off.volunteerH]
        ]
        for (const [method, path, headers, body] of routes) {
          expectStatus(yield* call(method, path, headers, body), 403, "FEATURE_DISABLED")
        }
      }))
  })
})
