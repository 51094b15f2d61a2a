import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf, metaOf } from "./fixtures/bodies.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"
import {
  makeApplication,
  makeMembership,
  makeOpportunity,
  makeOrganisation,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>
type Method = "GET" | "POST" | "PUT"

const VOLUNTEERING = "/api/v2/volunteering"
const OPPORTUNITIES = `${VOLUNTEERING}/opportunities`
const createPath = (organisationId: number | string) => `${VOLUNTEERING}/organisations/${organisationId}/opportunities`

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

/**
 * A community with an active organisation: its creator (owner), an organisation admin, a plain organisation member,
 * a community admin who is not in the organisation, and a volunteer; all signed in.
 */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({ settings: { starting_balance: 0 }, ...overrides })
    const owner = yield* makeUser(tenant, { firstName: "Olga", lastName: "Owner" })
    const orgAdmin = yield* makeUser(tenant, { firstName: "Abe", lastName: "Orgadmin" })
    const plain = yield* makeUser(tenant, { firstName: "Pia", lastName: "Plain" })
    const admin = yield* makeAdmin(tenant, { firstName: "Ada", lastName: "Admin" })
    const volunteer = yield* makeUser(tenant, { firstName: "Vic", lastName: "Volunteer" })
    const organisation = yield* makeOrganisation(owner, { name: `Food Bank ${tenant.id}` })
    yield* makeMembership(organisation, orgAdmin, "admin")
    yield* makeMembership(organisation, plain, "member")
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
      ownerH: ownerH!,
      orgAdminH: orgAdminH!,
      plainH: plainH!,
      adminH: adminH!,
      volunteerH: volunteerH!,
      anonymous: tenantHeaders(tenant)
    }
  })

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

const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((item) => item.id)

const createOpportunity = (organisation: TestOrganisation, headers: Headers, body: Record<string, unknown> = {}) =>
  Effect.map(
    call("POST", createPath(organisation.id), headers, {
      title: "Sort donations",
      description: "Help us sort food donations on Saturday mornings.",
      ...body
    }),
    (res) => {
      expectStatus(res, 201)
      return dataOf<{ id: number; status: string; title: string }>(res.body)
    }
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("opportunities and applications", (it) => {
  describe("create", () => {
    it.effect("the owner creates an open opportunity (201, D7 shape, VolOpportunityCreated); GET shows it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const res = yield* call("POST", createPath(c.organisation.id), c.ownerH, {
          title: "  Sort donations  ",
          description: "Help us sort food donations on Saturday mornings.",
          location: "Main hall"
        })
        expectStatus(res, 201)
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
          created_by: c.owner.id
        }])
        const got = yield* call("GET", `${OPPORTUNITIES}/${created.id}`, c.anonymous)
        expectStatus(got, 200)
        assert.deepStrictEqual(got.body, res.body)
        // The typed client decodes the same contract.
        const client = yield* apiClient(c.anonymous)
        const listed = yield* client.opportunities.list({ urlParams: {} })
        assert.deepStrictEqual(listed.data.map((o) => o.id), [created.id])
      }))

    it.effect("an organisation admin may create (here closed) and a site super-admin too", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const closed = yield* createOpportunity(c.organisation, c.orgAdminH, { status: "closed", location: null })
        assert.strictEqual(closed.status, "closed")
        const superAdmin = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        const bySuper = yield* createOpportunity(c.organisation, superAdmin)
        assert.strictEqual(bySuper.status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityCreated"), 2)
      }))

    it.effect("plain members, volunteers and community admins are 403; pending or suspended organisations 403", () =>
      Effect.gen(function*() {
        const c = yield* community()
        for (const headers of [c.plainH, c.volunteerH, c.adminH]) {
          expectStatus(
            yield* call("POST", createPath(c.organisation.id), headers, { title: "Sort", description: "Help" }),
            403,
            "FORBIDDEN"
          )
        }
        for (const status of ["pending", "suspended"] as const) {
          const organisation = yield* makeOrganisation(c.owner, { status })
          const res = yield* call("POST", createPath(organisation.id), c.ownerH, { title: "Sort", description: "Help" })
          expectStatus(res, 403, "FORBIDDEN")
        }
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityCreated"), 0)
      }))

    it.effect("another community's organisation, an unknown or malformed id are 404; no token is 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const body = { title: "Sort", description: "Help" }
        for (const id of [other.organisation.id, 999_999_999, "abc", 0]) {
          expectStatus(yield* call("POST", createPath(id), c.ownerH, body), 404, "NOT_FOUND")
        }
        expectStatus(yield* call("POST", createPath(c.organisation.id), c.anonymous, body), 401, "AUTH_REQUIRED")
      }))

    it.effect("bad input is 422 with one entry per field", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const res = yield* call("POST", createPath(c.organisation.id), c.ownerH, {
          title: "ab",
          description: "   ",
          status: "archived"
        })
        expectStatus(res, 422, "VALIDATION_ERROR")
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
        const res = yield* call("GET", OPPORTUNITIES, c.anonymous)
        expectStatus(res, 200)
        assert.deepStrictEqual(idsOf(res.body), [second.id, legacy.id, first.id])
        assert.deepStrictEqual(metaOf(res.body), { per_page: 20, has_more: false })
        assert.notInclude(idsOf(res.body), other.opportunity.id)

        // Detail: closed ones are readable; those of pending or suspended organisations, or elsewhere, are 404.
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        const got = yield* call("GET", `${OPPORTUNITIES}/${closed.id}`, c.anonymous)
        expectStatus(got, 200)
        assert.strictEqual(dataOf<{ status: string }>(got.body).status, "closed")
        for (const id of [hiddenPending.id, hiddenSuspended.id, other.opportunity.id, 999_999_999, "x1"]) {
          expectStatus(yield* call("GET", `${OPPORTUNITIES}/${id}`, c.anonymous), 404, "NOT_FOUND")
        }
      }))

    it.effect("organisation_id and search filter (% and _ literal); cursor pages end without gaps or repeats", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const second = yield* makeOrganisation(c.owner)
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) ids.push((yield* makeOpportunity(c.organisation, { title: `Shift ${i}` })).id)
        const percent = yield* makeOpportunity(second, { title: "100% fun_times" })
        yield* makeOpportunity(second, { title: "1000 fun times" })

        const byOrg = yield* call("GET", `${OPPORTUNITIES}?organisation_id=${second.id}`, c.anonymous)
        assert.lengthOf(idsOf(byOrg.body), 2)
        const searched = yield* call("GET", `${OPPORTUNITIES}?search=${encodeURIComponent("0% FUN_")}`, c.anonymous)
        assert.deepStrictEqual(idsOf(searched.body), [percent.id])
        const byDescription = yield* call("GET", `${OPPORTUNITIES}?search=AN%20AFTERNOON`, c.anonymous)
        assert.lengthOf(idsOf(byDescription.body), 7)

        const seen: Array<number> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const query = `?organisation_id=${c.organisation.id}&per_page=2${
            cursor === undefined ? "" : `&cursor=${cursor}`
          }`
          const res = yield* call("GET", `${OPPORTUNITIES}${query}`, c.anonymous)
          expectStatus(res, 200)
          seen.push(...idsOf(res.body))
          const meta = metaOf(res.body)
          if (!meta.has_more) {
            assert.notProperty(meta, "cursor")
            break
          }
          cursor = meta.cursor
        }
        assert.deepStrictEqual(seen, [...ids].reverse())

        const bad = yield* call("GET", `${OPPORTUNITIES}?cursor=!!&per_page=0&organisation_id=abc`, c.anonymous)
        expectStatus(bad, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(bad.body), ["cursor", "per_page", "organisation_id"])
      }))

    it.effect("with volunteering switched off every route of this file is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const c = yield* community({ features: { volunteering: false } })
        const opportunity = yield* makeOpportunity(c.organisation)
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const routes: Array<[Method, string, Headers, unknown?]> = [
          ["GET", OPPORTUNITIES, c.anonymous],
          ["GET", `${OPPORTUNITIES}/${opportunity.id}`, c.anonymous],
          ["POST", createPath(c.organisation.id), c.ownerH, { title: "Sort", description: "Help" }],
          ["PUT", `${OPPORTUNITIES}/${opportunity.id}`, c.ownerH, { status: "closed" }],
          ["POST", `${OPPORTUNITIES}/${opportunity.id}/apply`, c.plainH, {}],
          ["PUT", `${VOLUNTEERING}/applications/${application.id}`, c.ownerH, { status: "approved" }],
          ["GET", `${VOLUNTEERING}/my-applications`, c.volunteerH]
        ]
        for (const [method, path, headers, body] of routes) {
          expectStatus(yield* call(method, path, headers, body), 403, "FEATURE_DISABLED")
        }
      }))
  })

  describe("update", () => {
    it.effect("a manager edits and closes (VolOpportunityUpdated); a closed one leaves the list", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const res = yield* call("PUT", `${OPPORTUNITIES}/${opportunity.id}`, c.orgAdminH, {
          title: "Evening shift",
          status: "closed"
        })
        expectStatus(res, 200)
        assert.deepInclude(dataOf<Record<string, unknown>>(res.body), {
          id: opportunity.id,
          title: "Evening shift",
          status: "closed"
        })
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), [{
          opportunity_id: opportunity.id,
          organisation_id: c.organisation.id,
          fields: ["title", "status"],
          title: "Evening shift",
          status: "closed",
          updated_by: c.orgAdmin.id
        }])
        assert.deepStrictEqual(idsOf((yield* call("GET", OPPORTUNITIES, c.anonymous)).body), [])
        const got = yield* call("GET", `${OPPORTUNITIES}/${opportunity.id}`, c.anonymous)
        assert.deepInclude(dataOf<Record<string, unknown>>(got.body), { title: "Evening shift", status: "closed" })

        // Reopen; an empty edit changes nothing and raises no event.
        expectStatus(yield* call("PUT", `${OPPORTUNITIES}/${opportunity.id}`, c.ownerH, { status: "open" }), 200)
        const empty = yield* call("PUT", `${OPPORTUNITIES}/${opportunity.id}`, c.ownerH, {})
        expectStatus(empty, 200)
        assert.strictEqual(dataOf<{ status: string }>(empty.body).status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), 2)
      }))

    it.effect("others are 403, a suspended organisation 403, other communities' ids 404, bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const opportunity = yield* makeOpportunity(c.organisation)
        const path = `${OPPORTUNITIES}/${opportunity.id}`
        for (const headers of [c.plainH, c.volunteerH, c.adminH]) {
          expectStatus(yield* call("PUT", path, headers, { status: "closed" }), 403, "FORBIDDEN")
        }
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended" })
        const ofSuspended = yield* makeOpportunity(suspended)
        expectStatus(
          yield* call("PUT", `${OPPORTUNITIES}/${ofSuspended.id}`, c.ownerH, { status: "closed" }),
          403,
          "FORBIDDEN"
        )
        expectStatus(
          yield* call("PUT", `${OPPORTUNITIES}/${other.opportunity.id}`, c.ownerH, { status: "closed" }),
          404,
          "NOT_FOUND"
        )
        const bad = yield* call("PUT", path, c.ownerH, { title: "", status: "done" })
        expectStatus(bad, 422, "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(bad.body), ["title", "status"])
        expectStatus(yield* call("PUT", path, c.anonymous, { status: "closed" }), 401, "AUTH_REQUIRED")
        const got = yield* call("GET", path, c.anonymous)
        assert.strictEqual(dataOf<{ status: string }>(got.body).status, "open")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolOpportunityUpdated"), 0)
      }))
  })

  describe("apply", () => {
    it.effect("a member applies (201 pending, VolApplicationCreated); twice is 409; my-applications lists it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation, { title: "Driver" })
        const path = `${OPPORTUNITIES}/${opportunity.id}/apply`
        const res = yield* call("POST", path, c.volunteerH, { message: "  I have a van.  " })
        expectStatus(res, 201)
        const created = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            opportunity: { id: opportunity.id, title: "Driver" },
            organisation_id: c.organisation.id,
            user: summary(c.volunteer, "Vic", "Volunteer"),
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
        const again = yield* call("POST", path, c.volunteerH, {})
        expectStatus(again, 409, "ALREADY_EXISTS")

        const mine = yield* call("GET", `${VOLUNTEERING}/my-applications`, c.volunteerH)
        expectStatus(mine, 200)
        assert.deepStrictEqual(dataOf<Array<unknown>>(mine.body), [dataOf<unknown>(res.body)])
        assert.deepStrictEqual(metaOf(mine.body), { per_page: 20, has_more: false })
        // Others see only their own.
        const othersApplications = yield* call("GET", `${VOLUNTEERING}/my-applications`, c.plainH)
        assert.deepStrictEqual(dataOf<Array<unknown>>(othersApplications.body), [])
      }))

    it.effect("the message is optional (null); two applications sent at once make one (201 + 409)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const path = `${OPPORTUNITIES}/${opportunity.id}/apply`
        const results = yield* Effect.all(
          [call("POST", path, c.volunteerH, {}), call("POST", path, c.volunteerH, { message: "" })],
          { concurrency: 2 }
        )
        assert.sameMembers(results.map((r) => r.status), [201, 409])
        const created = results.find((r) => r.status === 201)!
        assert.isNull(dataOf<{ message: string | null }>(created.body).message)
        const rows = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`SELECT id FROM vol_applications WHERE opportunity_id = ${opportunity.id}`
        )
        assert.lengthOf(rows, 1)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationCreated"), 1)

        // A request without a body applies without a message.
        const bodyless = yield* rawRequest(
          "POST",
          `${OPPORTUNITIES}/${(yield* makeOpportunity(c.organisation)).id}/apply`,
          {
            headers: c.plainH
          }
        )
        expectStatus(bodyless, 201)
        assert.deepInclude(dataOf<Record<string, unknown>>(bodyless.body), { message: null, status: "pending" })
      }))

    it.effect("closed is 422 (field opportunity); hidden or foreign opportunities 404; visitors 403; bad input 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const closed = yield* makeOpportunity(c.organisation, { status: "closed" })
        const closedRes = yield* call("POST", `${OPPORTUNITIES}/${closed.id}/apply`, c.volunteerH, {})
        expectStatus(closedRes, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(closedRes.body), ["opportunity"])

        const pendingOrg = yield* makeOrganisation(c.owner, { status: "pending" })
        const hidden = yield* makeOpportunity(pendingOrg)
        for (const id of [hidden.id, other.opportunity.id, 999_999_999, "abc"]) {
          expectStatus(yield* call("POST", `${OPPORTUNITIES}/${id}/apply`, c.volunteerH, {}), 404, "NOT_FOUND")
        }

        const open = yield* makeOpportunity(c.organisation)
        const path = `${OPPORTUNITIES}/${open.id}/apply`
        const superAdmin = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        expectStatus(yield* call("POST", path, superAdmin, {}), 403, "FORBIDDEN")
        expectStatus(yield* call("POST", path, c.anonymous, {}), 401, "AUTH_REQUIRED")
        const tooLong = yield* call("POST", path, c.volunteerH, { message: "x".repeat(2001) })
        expectStatus(tooLong, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(tooLong.body), ["message"])
        const wrongType = yield* call("POST", path, c.volunteerH, { message: 42 })
        expectStatus(wrongType, 422, "VALIDATION_ERROR")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationCreated"), 0)
      }))

    it.effect("my-applications pages newest first to the end; anonymous or foreign tokens are 401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const created: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const opportunity = yield* makeOpportunity(c.organisation)
          const res = yield* call("POST", `${OPPORTUNITIES}/${opportunity.id}/apply`, c.volunteerH, {})
          expectStatus(res, 201)
          created.push(dataOf<{ id: number }>(res.body).id)
        }
        const seen: Array<number> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const query = `?per_page=2${cursor === undefined ? "" : `&cursor=${cursor}`}`
          const res = yield* call("GET", `${VOLUNTEERING}/my-applications${query}`, c.volunteerH)
          expectStatus(res, 200)
          seen.push(...idsOf(res.body))
          const meta = metaOf(res.body)
          if (!meta.has_more) {
            assert.notProperty(meta, "cursor")
            break
          }
          cursor = meta.cursor
        }
        assert.deepStrictEqual(seen, [...created].reverse())
        expectStatus(yield* call("GET", `${VOLUNTEERING}/my-applications`, c.anonymous), 401, "AUTH_REQUIRED")
        // The volunteer's token addressed to another community does not authenticate there (decisions D4).
        const foreign = { ...c.volunteerH, ...tenantHeaders(other.tenant) }
        expectStatus(yield* call("GET", `${VOLUNTEERING}/my-applications`, foreign), 401, "AUTH_REQUIRED")
      }))
  })

  describe("review applications", () => {
    it.effect("a manager approves (VolApplicationReviewed); the same decision again changes nothing", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const path = `${VOLUNTEERING}/applications/${application.id}`
        const res = yield* call("PUT", path, c.orgAdminH, { status: "approved" })
        expectStatus(res, 200)
        const view = dataOf<{ status: string; reviewed_at: string | null; user: unknown }>(res.body)
        assert.strictEqual(view.status, "approved")
        assert.isString(view.reviewed_at)
        assert.deepStrictEqual(view.user, summary(c.volunteer, "Vic", "Volunteer"))
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "VolApplicationReviewed"), [{
          application_id: application.id,
          opportunity_id: opportunity.id,
          organisation_id: c.organisation.id,
          user_id: c.volunteer.id,
          status: "approved",
          reviewed_by: c.orgAdmin.id
        }])
        const again = yield* call("PUT", path, c.ownerH, { status: "approved" })
        expectStatus(again, 200)
        assert.deepStrictEqual(again.body, res.body)
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 1)

        // The volunteer now counts for the organisation (spec aggregates).
        const detail = yield* call("GET", `${VOLUNTEERING}/organisations/${c.organisation.id}`, c.anonymous)
        assert.strictEqual(dataOf<{ volunteer_count: number }>(detail.body).volunteer_count, 1)

        // A decision may be changed: the organisation stops working with the volunteer.
        const declined = yield* call("PUT", path, c.ownerH, { status: "declined" })
        expectStatus(declined, 200)
        assert.strictEqual(dataOf<{ status: string }>(declined.body).status, "declined")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 2)
        const mine = yield* call("GET", `${VOLUNTEERING}/my-applications`, c.volunteerH)
        assert.strictEqual(dataOf<Array<{ status: string }>>(mine.body)[0]!.status, "declined")
      }))

    it.effect("the applicant, plain members and community admins are 403; own application 403; foreign 404", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* elsewhere
        const opportunity = yield* makeOpportunity(c.organisation)
        const application = yield* makeApplication(opportunity, c.volunteer, "pending")
        const path = `${VOLUNTEERING}/applications/${application.id}`
        for (const headers of [c.volunteerH, c.plainH, c.adminH]) {
          expectStatus(yield* call("PUT", path, headers, { status: "approved" }), 403, "FORBIDDEN")
        }
        // An organisation admin who applied may not decide on their own application.
        const own = yield* makeApplication(opportunity, c.orgAdmin, "pending")
        expectStatus(
          yield* call("PUT", `${VOLUNTEERING}/applications/${own.id}`, c.orgAdminH, { status: "approved" }),
          403,
          "FORBIDDEN"
        )
        for (const id of [other.application.id, 999_999_999, "nope"]) {
          expectStatus(
            yield* call("PUT", `${VOLUNTEERING}/applications/${id}`, c.ownerH, { status: "approved" }),
            404,
            "NOT_FOUND"
          )
        }
        const bad = yield* call("PUT", path, c.ownerH, { status: "pending" })
        expectStatus(bad, 422, "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(bad.body), ["status"])
        expectStatus(yield* call("PUT", path, c.anonymous, { status: "approved" }), 401, "AUTH_REQUIRED")
        // Nothing was decided.
        const mine = yield* call("GET", `${VOLUNTEERING}/my-applications`, c.volunteerH)
        assert.strictEqual(dataOf<Array<{ status: string }>>(mine.body)[0]!.status, "pending")
        assert.lengthOf(yield* eventsOf(c.tenant, "VolApplicationReviewed"), 0)
      }))

    it.effect("a suspended organisation's applications cannot be decided (403)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const suspended = yield* makeOrganisation(c.owner, { status: "suspended" })
        const application = yield* makeApplication(yield* makeOpportunity(suspended), c.volunteer, "pending")
        expectStatus(
          yield* call("PUT", `${VOLUNTEERING}/applications/${application.id}`, c.ownerH, { status: "approved" }),
          403,
          "FORBIDDEN"
        )
      }))
  })
})
