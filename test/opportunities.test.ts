import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { CreateOpportunity, OpportunityListParams, Tenant } from "@timebank/domain"
import { ApplicationId, OpportunityId, OrganisationId, RecordId } from "@timebank/domain"
import { Effect, Either } from "effect"
import { codeOf, dataOf, fieldsOf, metaOf } from "./fixtures/bodies.js"
import {
  type ApiClient,
  apiClient,
  expectError,
  expectStatus,
  expectWire,
  failureOf,
  ownAddressClient,
  pageCursor,
  wireClient
} from "./fixtures/client.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"
import {
  makeApplication,
  makeOpportunity,
  makeOrganisation,
  type OrganisationCommunityOptions,
  staffedCommunity,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>
type Method = "GET" | "POST" | "PUT"

const VOLUNTEERING = "/api/v2/volunteering"
const OPPORTUNITIES = `${VOLUNTEERING}/opportunities`
const createPath = (organisationId: number | string) => `${VOLUNTEERING}/organisations/${organisationId}/opportunities`

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

/**
 * The shared community with an active organisation: Olga Owner (its creator), Abe Orgadmin (its admin), Pia Plain
 * (a plain member of it), Ada Admin (the community admin, not in it) and Mia Member as the volunteer.
 */
const community = (options: OrganisationCommunityOptions = {}) =>
  Effect.map(staffedCommunity(options), (c) => ({ ...c, volunteer: c.member }))

/** Another community with its own organisation, opportunity and application (for cross-tenant ids). */
const elsewhere = Effect.gen(function*() {
  const tenant = yield* makeTenant()
  const owner = yield* makeUser(tenant)
  const organisation = yield* makeOrganisation(owner)
  const opportunity = yield* makeOpportunity(organisation)
  const application = yield* makeApplication(opportunity, yield* makeUser(tenant), "pending")
  return { tenant, organisation, opportunity, application }
})

const summary = (user: TestUser, first: string, last: string) => ({
  id: user.id,
  first_name: first,
  last_name: last,
  avatar_url: null
})

const idsOf = (page: { readonly data: ReadonlyArray<{ readonly id: number }> }) => page.data.map((item) => item.id)

const createOpportunity = (
  organisation: TestOrganisation,
  client: ApiClient,
  payload: Partial<CreateOpportunity> = {}
) =>
  Effect.map(
    client.opportunities.create({
      path: { id: organisation.id },
      payload: {
        title: "Sort donations",
        description: "Help us sort food donations on Saturday mornings.",
        ...payload
      },
      withResponse: true
    }).pipe(expectStatus(201)),
    (res) => res.data
  )

const shortOpportunity = { title: "Sort", description: "Help" }

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("opportunities and applications", (it) => {
  describe("create", () => {
    it.effect("the owner creates an open opportunity (201, D7 shape, VolOpportunityCreated); GET shows it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        // Raw: the title is trimmed by the server, and the answer must have exactly these fields.
        const res = yield* call("POST", createPath(c.organisation.id), c.owner.headers, {
          title: "  Sort donations  ",
          description: "Help us sort food donations on Saturday mornings.",
          location: "Main hall"
        })
        expectRaw(res, 201)
        const created = dataOf<{ id: number; created_at: string; updated_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            organisation_id: c.organisation.id,
            organisation: { id: c.organisation.id, name: c.organisation.name },
            title: "Sort donations",
            description: "Help us sort food donations on Saturday mornings.",
            location: "Main hall",
            status: "open",
            created_at: created.created_at,
            updated_at: created.updated_at
          },
          meta: {}
        })
        assert.match(created.created_at, /Z$/)
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolOpportunityCreated"), [{
          opportunity_id: created.id,
          organisation_id: c.organisation.id,
          title: "Sort donations",
          status: "open",
          created_by: c.owner.id,
          organisation_name: c.organisation.name
        }])
        const visitor = yield* wireClient(c.visitor)
        const got = yield* visitor.opportunities.get({
          path: { id: OpportunityId.make(created.id) },
          withResponse: true
        })
          .pipe(expectWire(200))
        assert.deepStrictEqual(got.body, res.body)
        // The typed client decodes the same contract.
        const listed = yield* visitor.opportunities.list({ urlParams: {} })
        assert.deepStrictEqual(listed.data.map((o) => o.id), [created.id])
      }))

    it.effect("an organisation admin may create (here closed) and a site super-admin too", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const closed = yield* createOpportunity(c.organisation, c.orgAdmin.client, { status: "closed", location: null })
        assert.strictEqual(closed.status, "closed")
        const superAdmin = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant))
        const bySuper = yield* createOpportunity(c.organisation, superAdmin)
        assert.strictEqual(bySuper.status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityCreated"), 2)
      }))

    it.effect("plain members, volunteers and community admins are 403; pending or suspended organisations 403", () =>
      Effect.gen(function*() {
        const c = yield* community()
        for (const who of [c.plain, c.volunteer, c.admin]) {
          yield* who.client.opportunities.create({ path: { id: c.organisation.id }, payload: shortOpportunity }).pipe(
            expectError(403, "FORBIDDEN")
          )
        }
        for (const status of ["pending", "suspended"] as const) {
          const organisation = yield* makeOrganisation(c.owner, { status })
          yield* c.owner.client.opportunities.create({ path: { id: organisation.id }, payload: shortOpportunity }).pipe(
            expectError(403, "FORBIDDEN")
          )
        }
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityCreated"), 0)
      }))

    it.effect("another community's organisation, an unknown or malformed id are 404; no token is 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        for (const id of [other.organisation.id, OrganisationId.make(999_999_999)]) {
          yield* c.owner.client.opportunities.create({ path: { id }, payload: shortOpportunity }).pipe(
            expectError(404, "NOT_FOUND")
          )
        }
        // Raw: ids the typed client cannot put in the path.
        for (const id of ["abc", 0]) {
          expectRaw(yield* call("POST", createPath(id), c.owner.headers, shortOpportunity), 404, "NOT_FOUND")
        }
        yield* c.visitor.client.opportunities.create({ path: { id: c.organisation.id }, payload: shortOpportunity })
          .pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("bad input is 422 with one entry per field", () =>
      Effect.gen(function*() {
        const c = yield* community()
        // Raw: a body the contract refuses, which the typed client would not send.
        const res = yield* call("POST", createPath(c.organisation.id), c.owner.headers, {
          title: "ab",
          description: "   ",
          status: "archived"
        })
        expectRaw(res, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(res.body), ["title", "description", "status"])
      }))
  })

  describe("list and detail", () => {
    it.effect("the list shows open opportunities of active organisations only, newest first", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const first = yield* makeOpportunity(c.organisation)
        yield* makeOpportunity(c.organisation, { status: "closed" })
        const pendingOrg = yield* makeOrganisation(c.owner, { status: "pending" })
        const suspendedOrg = yield* makeOrganisation(c.owner, { status: "suspended" })
        const approvedOrg = yield* makeOrganisation(c.owner, { status: "approved" })
        const hiddenPending = yield* makeOpportunity(pendingOrg)
        const hiddenSuspended = yield* makeOpportunity(suspendedOrg)
        const legacy = yield* makeOpportunity(approvedOrg)
        const second = yield* makeOpportunity(c.organisation)
        const res = yield* c.visitor.client.opportunities.list({ urlParams: {} })
        assert.deepStrictEqual(idsOf(res), [second.id, legacy.id, first.id])
        assert.deepStrictEqual(res.meta, { per_page: 20, has_more: false })
        assert.notInclude(idsOf(res), other.opportunity.id)

        // Detail: closed ones are readable; those of pending or suspended organisations, or elsewhere, are 404.
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        const got = yield* c.visitor.client.opportunities.get({ path: { id: closed.id } })
        assert.strictEqual(got.data.status, "closed")
        for (
          const id of [hiddenPending.id, hiddenSuspended.id, other.opportunity.id, OpportunityId.make(999_999_999)]
        ) {
          yield* c.visitor.client.opportunities.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: an id the typed client cannot put in the path.
        expectRaw(yield* call("GET", `${OPPORTUNITIES}/x1`, c.visitor.headers), 404, "NOT_FOUND")
      }))

    it.effect("organisation_id and search filter (% and _ literal); cursor pages end without gaps or repeats", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const second = yield* makeOrganisation(c.owner)
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) ids.push((yield* makeOpportunity(c.organisation, { title: `Shift ${i}` })).id)
        const percent = yield* makeOpportunity(second, { title: "100% fun_times" })
        yield* makeOpportunity(second, { title: "1000 fun times" })

        const list = (urlParams: OpportunityListParams) => c.visitor.client.opportunities.list({ urlParams })
        assert.lengthOf(idsOf(yield* list({ organisation_id: second.id })), 2)
        assert.deepStrictEqual(idsOf(yield* list({ search: "0% FUN_" })), [percent.id])
        assert.lengthOf(idsOf(yield* list({ search: "AN AFTERNOON" })), 7)

        const seen: Array<number> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const res = yield* list({
            organisation_id: c.organisation.id,
            per_page: 2,
            ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
          })
          seen.push(...idsOf(res))
          if (!res.meta.has_more) {
            assert.notProperty(res.meta, "cursor")
            break
          }
          cursor = res.meta.cursor
        }
        assert.deepStrictEqual(seen, [...ids].reverse())

        // Raw: parameters the typed client would not send.
        const bad = yield* call("GET", `${OPPORTUNITIES}?cursor=!!&per_page=0&organisation_id=abc`, c.visitor.headers)
        expectRaw(bad, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(bad.body), ["cursor", "per_page", "organisation_id"])
      }))

    it.effect("with volunteering switched off every route of this file is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const c = yield* community({ features: { volunteering: false } })
        const opportunity = yield* makeOpportunity(c.organisation)
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const gated = expectError(403, "FEATURE_DISABLED")
        yield* c.visitor.client.opportunities.list({ urlParams: {} }).pipe(gated)
        yield* c.visitor.client.opportunities.get({ path: { id: opportunity.id } }).pipe(gated)
        yield* c.owner.client.opportunities.create({ path: { id: c.organisation.id }, payload: shortOpportunity })
          .pipe(gated)
        yield* c.owner.client.opportunities.update({ path: { id: opportunity.id }, payload: { status: "closed" } })
          .pipe(gated)
        yield* c.plain.client.opportunities.apply({ path: { id: opportunity.id }, payload: {} }).pipe(gated)
        yield* c.owner.client.applications.review({ path: { id: application.id }, payload: { status: "approved" } })
          .pipe(gated)
        yield* c.volunteer.client.applications.mine({ urlParams: {} }).pipe(gated)
      }))
  })

  describe("update", () => {
    it.effect("a manager edits and closes (VolOpportunityUpdated); a closed one leaves the list", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const res = yield* c.orgAdmin.client.opportunities.update({
          path: { id: opportunity.id },
          payload: { title: "Evening shift", status: "closed" },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepInclude(res.data, { id: opportunity.id, title: "Evening shift", status: "closed" })
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), [{
          opportunity_id: opportunity.id,
          organisation_id: c.organisation.id,
          fields: ["title", "status"],
          title: "Evening shift",
          status: "closed",
          updated_by: c.orgAdmin.id
        }])
        assert.deepStrictEqual(idsOf(yield* c.visitor.client.opportunities.list({ urlParams: {} })), [])
        const got = yield* c.visitor.client.opportunities.get({ path: { id: opportunity.id } })
        assert.deepInclude(got.data, { title: "Evening shift", status: "closed" })

        // Reopen; an empty edit changes nothing and raises no event.
        yield* c.owner.client.opportunities.update({
          path: { id: opportunity.id },
          payload: { status: "open" },
          withResponse: true
        }).pipe(expectStatus(200))
        const empty = yield* c.owner.client.opportunities.update({
          path: { id: opportunity.id },
          payload: {},
          withResponse: true
        }).pipe(expectStatus(200))
        assert.strictEqual(empty.data.status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), 2)
      }))

    it.effect("others are 403, a suspended organisation 403, other communities' ids 404, bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const opportunity = yield* makeOpportunity(c.organisation)
        const close = (who: { readonly client: ApiClient }, id: OpportunityId) =>
          who.client.opportunities.update({ path: { id }, payload: { status: "closed" } })
        for (const who of [c.plain, c.volunteer, c.admin]) {
          yield* close(who, opportunity.id).pipe(expectError(403, "FORBIDDEN"))
        }
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended" })
        const ofSuspended = yield* makeOpportunity(suspended)
        yield* close(c.owner, ofSuspended.id).pipe(expectError(403, "FORBIDDEN"))
        yield* close(c.owner, other.opportunity.id).pipe(expectError(404, "NOT_FOUND"))
        // Raw: a body the contract refuses, which the typed client would not send.
        const bad = yield* call("PUT", `${OPPORTUNITIES}/${opportunity.id}`, c.owner.headers, {
          title: "",
          status: "done"
        })
        expectRaw(bad, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(bad.body), ["title", "status"])
        yield* close(c.visitor, opportunity.id).pipe(expectError(401, "AUTH_REQUIRED"))
        const got = yield* c.visitor.client.opportunities.get({ path: { id: opportunity.id } })
        assert.strictEqual(got.data.status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), 0)
      }))
  })

  describe("apply", () => {
    it.effect("a member applies (201 pending, VolApplicationCreated); twice is 409; my-applications lists it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation, { title: "Driver" })
        // Raw: the message is trimmed by the server, and the answer must have exactly these fields.
        const res = yield* call("POST", `${OPPORTUNITIES}/${opportunity.id}/apply`, c.volunteer.headers, {
          message: "  I have a van.  "
        })
        expectRaw(res, 201)
        const created = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            opportunity: { id: opportunity.id, title: "Driver" },
            organisation_id: c.organisation.id,
            user: summary(c.volunteer, "Mia", "Member"),
            message: "I have a van.",
            status: "pending",
            created_at: created.created_at,
            reviewed_at: null
          },
          meta: {}
        })
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolApplicationCreated"), [{
          application_id: created.id,
          opportunity_id: opportunity.id,
          organisation_id: c.organisation.id,
          user_id: c.volunteer.id
        }])
        yield* c.volunteer.client.opportunities.apply({ path: { id: opportunity.id }, payload: {} }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )

        const volunteer = yield* wireClient(c.volunteer)
        const mine = yield* volunteer.applications.mine({ urlParams: {}, withResponse: true }).pipe(expectWire(200))
        assert.deepStrictEqual(dataOf<Array<unknown>>(mine.body), [dataOf<unknown>(res.body)])
        assert.deepStrictEqual(metaOf(mine.body), { per_page: 20, has_more: false })
        // Others see only their own.
        const othersApplications = yield* c.plain.client.applications.mine({ urlParams: {} })
        assert.deepStrictEqual(othersApplications.data, [])
      }))

    it.effect("the message is optional (null); two applications sent at once make one (201 + 409)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const apply = (payload: { readonly message?: string }) =>
          c.volunteer.client.opportunities.apply({ path: { id: opportunity.id }, payload, withResponse: true }).pipe(
            Effect.either
          )
        const results = yield* Effect.all([apply({}), apply({ message: "" })], { concurrency: 2 })
        const created = results.filter(Either.isRight).map((r) => r.right)
        const refused = yield* Effect.forEach(results.filter(Either.isLeft), (r) => failureOf(Effect.fail(r.left)))
        assert.deepStrictEqual(created.map(([, response]) => response.status), [201])
        assert.deepStrictEqual(refused.map((f) => [f.status, f.code]), [[409, "ALREADY_EXISTS"]])
        assert.isNull(created[0]![0].data.message)
        const rows = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`SELECT id FROM vol_applications WHERE opportunity_id = ${opportunity.id}`
        )
        assert.lengthOf(rows, 1)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationCreated"), 1)

        // Raw: a request without a body applies without a message.
        const bodyless = yield* rawRequest(
          "POST",
          `${OPPORTUNITIES}/${(yield* makeOpportunity(c.organisation)).id}/apply`,
          {
            headers: c.plain.headers
          }
        )
        expectRaw(bodyless, 201)
        assert.deepInclude(dataOf<Record<string, unknown>>(bodyless.body), { message: null, status: "pending" })
      }))

    it.effect("closed is 422 (field opportunity); hidden or foreign opportunities 404; visitors 403; bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const apply = (who: { readonly client: ApiClient }, id: OpportunityId) =>
          who.client.opportunities.apply({ path: { id }, payload: {} })
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        const closedRes = yield* apply(c.volunteer, closed.id).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(closedRes.fields, ["opportunity"])

        const pendingOrg = yield* makeOrganisation(c.owner, { status: "pending" })
        const hidden = yield* makeOpportunity(pendingOrg)
        for (const id of [hidden.id, other.opportunity.id, OpportunityId.make(999_999_999)]) {
          yield* apply(c.volunteer, id).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: an id the typed client cannot put in the path.
        expectRaw(yield* call("POST", `${OPPORTUNITIES}/abc/apply`, c.volunteer.headers, {}), 404, "NOT_FOUND")

        const open = yield* makeOpportunity(c.organisation)
        const path = `${OPPORTUNITIES}/${open.id}/apply`
        const superAdmin = { client: yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant)) }
        yield* apply(superAdmin, open.id).pipe(expectError(403, "FORBIDDEN"))
        yield* apply(c.visitor, open.id).pipe(expectError(401, "AUTH_REQUIRED"))
        // Raw: messages the contract refuses, which the typed client would not send.
        const tooLong = yield* call("POST", path, c.volunteer.headers, { message: "x".repeat(2001) })
        expectRaw(tooLong, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(tooLong.body), ["message"])
        const wrongType = yield* call("POST", path, c.volunteer.headers, { message: 42 })
        expectRaw(wrongType, 422, "VALIDATION_ERROR")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationCreated"), 0)
      }))

    it.effect("my-applications pages newest first to the end; anonymous or foreign tokens are 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const created: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const opportunity = yield* makeOpportunity(c.organisation)
          const res = yield* c.volunteer.client.opportunities.apply({
            path: { id: opportunity.id },
            payload: {},
            withResponse: true
          }).pipe(expectStatus(201))
          created.push(res.data.id)
        }
        const seen: Array<number> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const res = yield* c.volunteer.client.applications.mine({
            urlParams: { per_page: 2, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
          })
          seen.push(...idsOf(res))
          if (!res.meta.has_more) {
            assert.notProperty(res.meta, "cursor")
            break
          }
          cursor = res.meta.cursor
        }
        assert.deepStrictEqual(seen, [...created].reverse())
        yield* c.visitor.client.applications.mine({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        // The volunteer's token addressed to another community does not authenticate there (decisions D4).
        const foreign = yield* apiClient({ ...c.volunteer.headers, ...tenantHeaders(other.tenant) })
        yield* foreign.applications.mine({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("review applications", () => {
    it.effect("a manager approves (VolApplicationReviewed); the same decision again changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation, { title: "Pack food parcels" })
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const review = (client: ApiClient, status: "approved" | "declined") =>
          client.applications.review({ path: { id: application.id }, payload: { status }, withResponse: true })
        const res = yield* review(yield* wireClient(c.orgAdmin), "approved").pipe(expectWire(200))
        const view = res.value.data
        assert.strictEqual(view.status, "approved")
        assert.isNotNull(view.reviewed_at)
        assert.isString(dataOf<{ reviewed_at: unknown }>(res.body).reviewed_at)
        assert.deepStrictEqual<unknown>(view.user, summary(c.volunteer, "Mia", "Member"))
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolApplicationReviewed"), [{
          application_id: application.id,
          opportunity_id: opportunity.id,
          organisation_id: c.organisation.id,
          user_id: c.volunteer.id,
          status: "approved",
          reviewed_by: c.orgAdmin.id,
          opportunity_title: "Pack food parcels",
          organisation_name: c.organisation.name
        }])
        const again = yield* review(yield* wireClient(c.owner), "approved").pipe(expectWire(200))
        assert.deepStrictEqual(again.body, res.body)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 1)

        // The volunteer now counts for the organisation (spec aggregates).
        const detail = yield* (yield* ownAddressClient(c.visitor)).organisations.get({
          path: { id: c.organisation.id }
        })
        assert.strictEqual(detail.data.volunteer_count, 1)

        // A decision may be changed: the organisation stops working with the volunteer.
        const declined = yield* review(c.owner.client, "declined").pipe(expectStatus(200))
        assert.strictEqual(declined.data.status, "declined")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 2)
        const mine = yield* c.volunteer.client.applications.mine({ urlParams: {} })
        assert.strictEqual(mine.data[0]!.status, "declined")
      }))

    it.effect("the applicant, plain members and community admins are 403; own application 403; foreign 404", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const opportunity = yield* makeOpportunity(c.organisation)
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const approve = (who: { readonly client: ApiClient }, id: ApplicationId) =>
          who.client.applications.review({ path: { id }, payload: { status: "approved" } })
        for (const who of [c.volunteer, c.plain, c.admin]) {
          yield* approve(who, application.id).pipe(expectError(403, "FORBIDDEN"))
        }
        // An organisation admin who applied may not decide on their own application.
        const own = yield* makeApplication(opportunity, c.orgAdmin, "pending")
        yield* approve(c.orgAdmin, own.id).pipe(expectError(403, "FORBIDDEN"))
        for (const id of [other.application.id, ApplicationId.make(999_999_999)]) {
          yield* approve(c.owner, id).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: an id and a decision the typed client cannot send.
        expectRaw(
          yield* call("PUT", `${VOLUNTEERING}/applications/nope`, c.owner.headers, { status: "approved" }),
          404,
          "NOT_FOUND"
        )
        const bad = yield* call("PUT", `${VOLUNTEERING}/applications/${application.id}`, c.owner.headers, {
          status: "pending"
        })
        expectRaw(bad, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(bad.body), ["status"])
        yield* approve(c.visitor, application.id).pipe(expectError(401, "AUTH_REQUIRED"))
        // Nothing was decided.
        const mine = yield* c.volunteer.client.applications.mine({ urlParams: {} })
        assert.strictEqual(mine.data[0]!.status, "pending")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 0)
      }))

    it.effect("a suspended organisation's applications cannot be decided (403)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended" })
        const application = yield* makeApplication(yield* makeOpportunity(suspended), c.volunteer, "pending")
        yield* c.owner.client.applications.review({ path: { id: application.id }, payload: { status: "approved" } })
          .pipe(expectError(403, "FORBIDDEN"))
      }))
  })
})
