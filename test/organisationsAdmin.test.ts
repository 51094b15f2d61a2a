import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import { community as baseCommunity } from "./fixtures/community.js"
import { verifyLedger } from "./fixtures/ledger.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import {
  makeApplication,
  makeHours,
  makeMembership,
  makeOpportunity,
  makeOrganisation,
  makeReview,
  type TestOrganisation
} from "./fixtures/volunteering.js"

const metaOf = <A = Record<string, unknown>>(body: unknown) => (body as { meta: A }).meta
const includes = (actual: unknown, expected: Record<string, unknown>, message?: string) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected, message)
const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((x) => x.id)

const ORGS = "/api/v2/admin/volunteering/organizations"
const DIRECTORY = "/api/v2/volunteering/organisations"
type Method = "GET" | "POST" | "PUT"
type Headers = Record<string, string>
type Route = readonly [Method, string, unknown?]

interface AdminOrg {
  readonly id: number
  readonly name: string
  readonly slug: string
  readonly status: string
  readonly balance: number
  readonly auto_pay_enabled: boolean
  readonly member_count: number
  readonly opportunity_count: number
  readonly volunteer_count: number
  readonly total_hours: number
  readonly average_rating: number | null
  readonly review_count: number
  readonly owner: { id: number; first_name: string; last_name: string; avatar_url: string | null }
}
interface Tx {
  readonly id: number
  readonly type: string
  readonly amount: number
  readonly direction: "in" | "out"
  readonly description: string
}

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const adjust = (headers: Headers, id: number, body: unknown, key: string = randomUUID()) =>
  call("PUT", `${ORGS}/${id}/wallet/adjust`, { ...headers, "idempotency-key": key }, body)

/** The shared community, its admin's headers also as `headers`, with a signed-in broker. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const c = yield* baseCommunity(overrides)
    const broker = yield* makeUser(c.tenant, { role: "broker" })
    return { ...c, headers: c.adminHeaders, brokerHeaders: yield* authHeaders(broker) }
  })
type Community = Effect.Effect.Success<ReturnType<typeof community>>

const registration = (name: string = `Org ${randomUUID().slice(0, 8)}`) => ({
  name,
  description: "We help neighbours with their gardens every weekend.",
  contact_email: "hello@example.org"
})

/** Every route of the group, aimed at organisation `id`. */
const routes = (id: number): Array<Route> => [
  ["GET", ORGS],
  ["POST", ORGS, registration()],
  ["PUT", `${ORGS}/${id}`, { description: "A new description that is long enough." }],
  ["PUT", `${ORGS}/${id}/status`, { status: "suspended" }],
  ["GET", `${ORGS}/${id}/members`],
  ["PUT", `${ORGS}/${id}/wallet/adjust`, { amount: 5, reason: "Top up" }],
  ["GET", `${ORGS}/${id}/wallet/transactions`]
]
const byIdRoutes = (id: number) => routes(id).filter(([, path]) => path !== ORGS)

const orgRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ name: string; status: string; description: string }>`
        SELECT name, status, description FROM vol_organisations WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]!))
  ).pipe(Effect.orDie)

const countOrganisations = (tenant: Tenant) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM vol_organisations WHERE tenant_id = ${tenant.id}`.pipe(
        Effect.map((rows) => rows[0]!.n)
      )
  ).pipe(Effect.orDie)

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    )).pipe(Effect.orDie)

const ledgerCount = (tenant: Tenant) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_transactions WHERE tenant_id = ${tenant.id}`.pipe(
        Effect.map((rows) => rows[0]!.n)
      )
  ).pipe(Effect.orDie)

/** The accounts a transaction moved credits between, as `kind:amount`. */
const entriesOf = (transactionId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ kind: string; owner_id: string | null; amount: string }>`
        SELECT a.kind, a.owner_id, e.amount FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE e.transaction_id = ${transactionId} ORDER BY e.amount`.pipe(
        Effect.map((rows) => rows.map((r) => `${r.kind}:${r.owner_id ?? "-"}:${Number(r.amount)}`))
      )
  ).pipe(Effect.orDie)

const getOne = (c: Community, id: number) =>
  Effect.map(
    call("GET", `${ORGS}?per_page=100`, c.headers),
    (res) => dataOf<Array<AdminOrg>>(res.body).find((o) => o.id === id)!
  )

const directoryIds = (c: Community) =>
  Effect.map(
    call("GET", `${DIRECTORY}?per_page=50`, { ...c.anonymous, ...fromIp(randomIp()) }),
    (res) => {
      assert.strictEqual(res.status, 200, res.text)
      return idsOf(res.body)
    }
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin organisations", (it) => {
  describe("access", () => {
    it.effect("anonymous 401; member, broker and coordinator 403 on every route, and nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "pending" })
        const coordinator = yield* authHeaders(yield* makeUser(c.tenant, { role: "coordinator" }))
        for (const [method, path, body] of routes(org.id)) {
          const anon = yield* call(method, path, c.anonymous, body)
          assert.deepStrictEqual([anon.status, codeOf(anon.body)], [401, "AUTH_REQUIRED"], `${method} ${path}`)
          for (const headers of [c.memberHeaders, c.brokerHeaders, coordinator]) {
            const res = yield* call(method, path, headers, body)
            assert.deepStrictEqual([res.status, codeOf(res.body)], [403, "FORBIDDEN"], `${method} ${path}`)
          }
        }
        // Not even the organisation's own owner reaches the admin routes.
        const owner = yield* call("GET", `${ORGS}/${org.id}/members`, c.memberHeaders)
        assert.strictEqual(owner.status, 403)
        assert.strictEqual(yield* countOrganisations(c.tenant), 1)
        includes(yield* orgRow(org.id), { status: "pending" })
        assert.strictEqual(yield* ledgerCount(c.tenant), 0)
      }))

    it.effect("another community's organisation is 404 on every {id} route (admin and super-admin); bad ids 404", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const foreign = yield* makeOrganisation(b.member, { status: "pending" })
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), a.tenant)
        for (const headers of [a.headers, superHeaders]) {
          for (const [method, path, body] of byIdRoutes(foreign.id)) {
            const res = yield* call(method, path, headers, body)
            assert.deepStrictEqual([res.status, codeOf(res.body)], [404, "NOT_FOUND"], `${method} ${path}`)
          }
        }
        for (const id of ["abc", "0", "-1", "1.5"]) {
          for (const [method, path, body] of byIdRoutes(0).map(([m, p, x]) => [m, p.replace("/0", `/${id}`), x])) {
            const res = yield* call(method as Method, path as string, a.headers, body)
            assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
          }
        }
        includes(yield* orgRow(foreign.id), { status: "pending" })
        assert.deepStrictEqual(idsOf((yield* call("GET", ORGS, a.headers)).body), [])
        assert.strictEqual(yield* ledgerCount(b.tenant), 0)
      }))

    it.effect("with volunteering switched off every route is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const c = yield* community({ features: { volunteering: false } })
        const org = yield* makeOrganisation(c.member)
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        for (const headers of [c.headers, superHeaders]) {
          for (const [method, path, body] of routes(org.id)) {
            const res = yield* call(method, path, headers, body)
            assert.deepStrictEqual([res.status, codeOf(res.body)], [403, "FEATURE_DISABLED"], `${method} ${path}`)
          }
        }
        assert.strictEqual(yield* countOrganisations(c.tenant), 1)
        assert.strictEqual(yield* ledgerCount(c.tenant), 0)
      }))

    it.effect("a platform super-admin addressing the community may use every route (and must name an owner)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "pending" })
        const headers = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        const noOwner = yield* call("POST", ORGS, headers, registration())
        assert.deepStrictEqual([noOwner.status, codeOf(noOwner.body), fieldsOf(noOwner.body)], [
          422,
          "VALIDATION_ERROR",
          ["owner_id"]
        ])
        const created = yield* call("POST", ORGS, headers, { ...registration(), owner_id: c.member.id })
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual(dataOf<AdminOrg>(created.body).owner.id, c.member.id)
        const expected: Array<number> = [200, 201, 200, 200, 200, 200, 200]
        const statuses: Array<number> = []
        for (const [method, path, body] of routes(org.id)) {
          const res = method === "PUT" && path.endsWith("/adjust")
            ? yield* adjust(headers, org.id, body)
            : yield* call(
              method,
              path,
              headers,
              method === "POST" ? { ...(body as object), owner_id: c.member.id } : body
            )
          statuses.push(res.status)
        }
        assert.deepStrictEqual(statuses, expected)
        includes(yield* orgRow(org.id), { status: "suspended" })
        assert.strictEqual((yield* getOne(c, org.id)).balance, 5)
      }))
  })

  describe("list", () => {
    it.effect("items carry the directory fields, stats from known data, status, balance and member count", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "pending", website: "https://garden.example.org" })
        const quiet = yield* makeOrganisation(c.admin, { status: "suspended", autoPay: true })
        const [v1, v2, v3] = [yield* makeUser(c.tenant), yield* makeUser(c.tenant), yield* makeUser(c.tenant)]
        const open1 = yield* makeOpportunity(org)
        const open2 = yield* makeOpportunity(org)
        yield* makeOpportunity(org, { status: "closed" })
        yield* makeApplication(open1, v1)
        yield* makeApplication(open2, v1)
        yield* makeApplication(open1, v2)
        yield* makeApplication(open2, v3, "pending")
        yield* makeHours(org, v1, 2.5)
        yield* makeHours(org, v2, 1.25)
        yield* makeHours(org, v3, 3, "pending")
        yield* makeReview(v1, { type: "organization", id: org.id }, 4)
        yield* makeReview(v2, { type: "organization", id: org.id }, 5)
        yield* makeReview(v3, { type: "organization", id: org.id }, 5)
        yield* makeMembership(org, v1, "admin")
        yield* makeMembership(org, v2, "member", "pending")
        const adjusted = yield* adjust(c.headers, org.id, { amount: 10.5, reason: "Seed money" })
        assert.strictEqual(adjusted.status, 200, adjusted.text)

        const res = yield* call("GET", ORGS, c.headers)
        assert.strictEqual(res.status, 200, res.text)
        const items = dataOf<Array<AdminOrg & Record<string, unknown>>>(res.body)
        assert.deepStrictEqual(items.map((o) => o.id), [quiet.id, org.id])
        const item = items[1]!
        includes(item as Record<string, unknown>, {
          id: org.id,
          name: org.name,
          description: "A test organisation that helps the community.",
          logo_url: null,
          website: "https://garden.example.org",
          contact_email: "contact@example.org",
          location: null,
          status: "pending",
          balance: 10.5,
          auto_pay_enabled: false,
          member_count: 2,
          opportunity_count: 2,
          volunteer_count: 2,
          total_hours: 3.75,
          average_rating: 4.7,
          review_count: 3
        })
        assert.deepStrictEqual(item.owner, {
          id: c.member.id,
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        assert.isString(item.slug)
        assert.isString(item["created_at"])
        assert.isString(item["updated_at"])
        assert.notProperty(item, "tenant_id")
        includes(items[0] as Record<string, unknown>, {
          status: "suspended",
          balance: 0,
          auto_pay_enabled: true,
          member_count: 1,
          opportunity_count: 0,
          volunteer_count: 0,
          total_hours: 0,
          average_rating: null,
          review_count: 0
        })
        assert.deepStrictEqual(metaOf(res.body), {
          current_page: 1,
          per_page: 20,
          total: 2,
          total_pages: 1,
          has_more: false
        })
      }))

    it.effect("offset paging meta, status and search filters, newest first; bad parameters 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const statuses = ["pending", "active", "approved", "suspended", "active"] as const
        const orgs: Array<TestOrganisation> = []
        for (const [i, status] of statuses.entries()) {
          orgs.push(
            yield* makeOrganisation(c.member, { status, name: `Org ${i} ${status} ${randomUUID().slice(0, 6)}` })
          )
        }
        const newestFirst = orgs.map((o) => o.id).reverse()
        const pages: Array<Array<number>> = []
        for (const page of [1, 2, 3]) {
          const res = yield* call("GET", `${ORGS}?per_page=2&page=${page}`, c.headers)
          assert.strictEqual(res.status, 200, res.text)
          assert.deepStrictEqual(metaOf(res.body), {
            current_page: page,
            per_page: 2,
            total: 5,
            total_pages: 3,
            has_more: page < 3
          })
          pages.push(idsOf(res.body))
        }
        assert.deepStrictEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)])
        const beyond = yield* call("GET", `${ORGS}?per_page=2&page=9`, c.headers)
        assert.deepStrictEqual(idsOf(beyond.body), [])
        includes(metaOf(beyond.body), { has_more: false, total: 5 })

        const active = yield* call("GET", `${ORGS}?status=active`, c.headers)
        assert.deepStrictEqual(idsOf(active.body), [orgs[4]!.id, orgs[1]!.id])
        includes(metaOf(active.body), { total: 2 })
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ORGS}?status=approved`, c.headers)).body), [orgs[2]!.id])
        const search = yield* call("GET", `${ORGS}?search=${encodeURIComponent("SUSPENDED")}`, c.headers)
        assert.deepStrictEqual(idsOf(search.body), [orgs[3]!.id])
        const both = yield* call("GET", `${ORGS}?search=org&status=pending`, c.headers)
        assert.deepStrictEqual(idsOf(both.body), [orgs[0]!.id])
        // `%` and `_` are literal.
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ORGS}?search=%25`, c.headers)).body), [])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ORGS}?search=_`, c.headers)).body), [])

        for (
          const [query, field] of [
            ["status=closed", "status"],
            ["page=0", "page"],
            ["per_page=0", "per_page"],
            ["per_page=101", "per_page"],
            ["page=x", "page"]
          ] as const
        ) {
          const res = yield* call("GET", `${ORGS}?${query}`, c.headers)
          assert.deepStrictEqual([res.status, codeOf(res.body), fieldsOf(res.body)], [422, "VALIDATION_ERROR", [field]])
        }
        const closed = yield* call("GET", `${ORGS}?status=closed`, c.headers)
        assert.strictEqual(errorsOf(closed.body)[0]!.message, "must be pending, active, approved or suspended")
      }))
  })

  describe("create and update", () => {
    it.effect("admin-create lands active with an owner membership and shows in the public directory", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const body = { ...registration(), website: "https://example.org/help", location: "Town hall" }
        const res = yield* call("POST", ORGS, c.headers, body)
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<AdminOrg & Record<string, unknown>>(res.body)
        assert.deepInclude(created as Record<string, unknown>, {
          name: body.name,
          status: "active",
          website: "https://example.org/help",
          location: "Town hall",
          balance: 0,
          member_count: 1,
          auto_pay_enabled: false
        })
        assert.strictEqual(created.owner.id, c.admin.id)
        const members = yield* call("GET", `${ORGS}/${created.id}/members`, c.headers)
        assert.strictEqual(members.status, 200, members.text)
        assert.deepStrictEqual(
          dataOf<Array<{ user: { id: number }; role: string; status: string }>>(members.body).map((m) => [
            m.user.id,
            m.role,
            m.status
          ]),
          [[c.admin.id, "owner", "active"]]
        )
        assert.deepStrictEqual(yield* directoryIds(c), [created.id])

        // Another member as owner, through the typed client.
        const client = yield* apiClient(c.headers)
        const forMember = yield* client.adminOrganisations.create({
          payload: { ...registration(), owner_id: c.member.id }
        })
        assert.strictEqual(forMember.data.owner.id, c.member.id)
        assert.strictEqual(forMember.data.status, "active")
        const registered = yield* eventsOf(c.tenant, "OrganisationRegistered")
        assert.deepInclude(registered, {
          organisation_id: forMember.data.id,
          user_id: c.member.id,
          name: forMember.data.name,
          status: "active",
          created_by: c.admin.id
        })
      }))

    it.effect("admin-create refuses a taken name (409), a bad owner (422 owner_id) and lists every bad field", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* community()
        const existing = yield* makeOrganisation(c.member, { status: "pending" })
        const dup = yield* call("POST", ORGS, c.headers, registration(existing.name.toUpperCase()))
        assert.deepStrictEqual([dup.status, codeOf(dup.body), fieldsOf(dup.body)], [409, "ALREADY_EXISTS", ["name"]])
        const suspended = yield* makeUser(c.tenant, { status: "suspended" })
        for (const owner_id of [other.member.id, suspended.id, 99_999_999]) {
          const res = yield* call("POST", ORGS, c.headers, { ...registration(), owner_id })
          assert.deepStrictEqual([res.status, codeOf(res.body), fieldsOf(res.body)], [
            422,
            "VALIDATION_ERROR",
            ["owner_id"]
          ])
        }
        const bad = yield* call("POST", ORGS, c.headers, {
          name: "ab",
          description: "too short",
          contact_email: "nope",
          website: "ftp://example.org",
          owner_id: "x"
        })
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(fieldsOf(bad.body), ["name", "description", "contact_email", "website", "owner_id"])
        const notJson = yield* rawRequest("POST", ORGS, { headers: c.headers, body: "{" })
        assert.strictEqual(notJson.status, 400)
        assert.strictEqual(yield* countOrganisations(c.tenant), 1)
      }))

    it.effect("PUT updates fields of any status (200), refuses a taken name (409) and bad fields (422)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "suspended" })
        const taken = yield* makeOrganisation(c.member)
        const res = yield* call("PUT", `${ORGS}/${org.id}`, c.headers, {
          name: "  Renamed Garden Club ",
          website: "http://garden.example.org",
          location: null
        })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), {
          id: org.id,
          name: "Renamed Garden Club",
          website: "http://garden.example.org",
          status: "suspended"
        })
        includes(yield* orgRow(org.id), { name: "Renamed Garden Club", status: "suspended" })
        const dup = yield* call("PUT", `${ORGS}/${org.id}`, c.headers, { name: taken.name.toLowerCase() })
        assert.deepStrictEqual([dup.status, codeOf(dup.body), fieldsOf(dup.body)], [409, "ALREADY_EXISTS", ["name"]])
        const same = yield* call("PUT", `${ORGS}/${org.id}`, c.headers, { name: "RENAMED garden club" })
        assert.strictEqual(same.status, 200, "its own name in another case is not taken")
        const bad = yield* call("PUT", `${ORGS}/${org.id}`, c.headers, { website: "javascript:alert(1)", name: 5 })
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(fieldsOf(bad.body), ["website", "name"])
        includes(yield* orgRow(org.id), { name: "RENAMED garden club" })
        assert.deepInclude(yield* eventsOf(c.tenant, "OrganisationUpdated"), {
          organisation_id: org.id,
          fields: ["name", "website", "location"],
          updated_by: c.admin.id
        })
      }))
  })

  describe("status", () => {
    it.effect("pending → active → suspended → active, each in the outbox; the directory follows", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "pending" })
        assert.deepStrictEqual(yield* directoryIds(c), [])
        const setStatus = (status: string) => call("PUT", `${ORGS}/${org.id}/status`, c.headers, { status })

        const activated = yield* setStatus("active")
        assert.strictEqual(activated.status, 200, activated.text)
        includes(dataOf(activated.body), { id: org.id, status: "active", member_count: 1 })
        assert.deepStrictEqual(yield* directoryIds(c), [org.id])

        const suspended = yield* setStatus("suspended")
        includes(dataOf(suspended.body), { status: "suspended" })
        assert.deepStrictEqual(yield* directoryIds(c), [])
        const detail = yield* call("GET", `${DIRECTORY}/${org.id}`, { ...c.anonymous, ...fromIp(randomIp()) })
        assert.strictEqual(detail.status, 404)

        // Setting the status it has is a no-op: 200, no event.
        assert.strictEqual((yield* setStatus("suspended")).status, 200)
        const reactivated = yield* setStatus("active")
        includes(dataOf(reactivated.body), { status: "active" })
        assert.deepStrictEqual(yield* directoryIds(c), [org.id])

        assert.deepStrictEqual(yield* eventsOf(c.tenant, "OrganisationStatusChanged"), [
          { organisation_id: org.id, from: "pending", to: "active", changed_by: c.admin.id },
          { organisation_id: org.id, from: "active", to: "suspended", changed_by: c.admin.id },
          { organisation_id: org.id, from: "suspended", to: "active", changed_by: c.admin.id }
        ])
        const approved = yield* makeOrganisation(c.member, { status: "approved" })
        const fromApproved = yield* call("PUT", `${ORGS}/${approved.id}/status`, c.headers, { status: "suspended" })
        includes(dataOf(fromApproved.body), { status: "suspended" })
      }))

    it.effect("only active or suspended: pending, approved, closed and junk are 422 on status and change nothing", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member, { status: "pending" })
        for (const body of [{ status: "pending" }, { status: "approved" }, { status: "closed" }, { status: 1 }, {}]) {
          const res = yield* call("PUT", `${ORGS}/${org.id}/status`, c.headers, body)
          assert.deepStrictEqual(
            [res.status, codeOf(res.body), fieldsOf(res.body)],
            [422, "VALIDATION_ERROR", ["status"]],
            JSON.stringify(body)
          )
        }
        const pending = yield* call("PUT", `${ORGS}/${org.id}/status`, c.headers, { status: "pending" })
        assert.strictEqual(errorsOf(pending.body)[0]!.message, "must be active or suspended")
        includes(yield* orgRow(org.id), { status: "pending" })
        assert.deepStrictEqual(yield* eventsOf(c.tenant, "OrganisationStatusChanged"), [])
      }))
  })

  describe("members", () => {
    it.effect("owners first, then admins, then by joining; every status; offset pages", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member)
        const people = [
          yield* makeUser(c.tenant, { firstName: "Joe" }),
          yield* makeUser(c.tenant, { firstName: "Kim" }),
          yield* makeUser(c.tenant, { firstName: "Lou" }),
          yield* makeUser(c.tenant, { firstName: "Max" })
        ]
        yield* makeMembership(org, people[0]!, "member")
        yield* makeMembership(org, people[1]!, "admin")
        yield* makeMembership(org, people[2]!, "member", "removed")
        yield* makeMembership(org, people[3]!, "owner")
        const all = yield* call("GET", `${ORGS}/${org.id}/members`, c.headers)
        assert.strictEqual(all.status, 200, all.text)
        type Member = {
          id: number
          user: { id: number; first_name: string; last_name: string; avatar_url: string | null }
          role: string
          status: string
          joined_at: string
        }
        const rows = dataOf<Array<Member>>(all.body)
        assert.deepStrictEqual(rows.map((m) => [m.user.first_name, m.role, m.status]), [
          ["Mia", "owner", "active"],
          ["Max", "owner", "active"],
          ["Kim", "admin", "active"],
          ["Joe", "member", "active"],
          ["Lou", "member", "removed"]
        ])
        assert.deepStrictEqual(Object.keys(rows[0]!).sort(), ["id", "joined_at", "role", "status", "user"])
        assert.deepStrictEqual(rows[0]!.user, {
          id: c.member.id,
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        assert.deepStrictEqual(metaOf(all.body), {
          current_page: 1,
          per_page: 20,
          total: 5,
          total_pages: 1,
          has_more: false
        })
        const seen: Array<number> = []
        for (const page of [1, 2, 3]) {
          const res = yield* call("GET", `${ORGS}/${org.id}/members?per_page=2&page=${page}`, c.headers)
          includes(metaOf(res.body), { total: 5, total_pages: 3, has_more: page < 3 })
          seen.push(...idsOf(res.body))
        }
        assert.deepStrictEqual(seen, rows.map((m) => m.id))
        assert.strictEqual((yield* getOne(c, org.id)).member_count, 4)
      }))
  })

  describe("wallet", () => {
    it.effect("adjust pays in from and back to the treasury; never below zero; the ledger stays balanced", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member)
        const up = yield* adjust(c.headers, org.id, { amount: 12.25, reason: "Grant from the council" })
        assert.strictEqual(up.status, 200, up.text)
        const upData = dataOf<{ balance: number; transaction_id: number }>(up.body)
        assert.deepStrictEqual(up.body, { data: { balance: 12.25, transaction_id: upData.transaction_id }, meta: {} })
        assert.deepStrictEqual(yield* entriesOf(upData.transaction_id), [
          "treasury:-:-12.25",
          `organisation:${org.id}:12.25`
        ])

        const down = yield* adjust(c.headers, org.id, { amount: -2.25, reason: "Correction" })
        assert.strictEqual(down.status, 200, down.text)
        const downData = dataOf<{ balance: number; transaction_id: number }>(down.body)
        assert.strictEqual(downData.balance, 10)
        assert.deepStrictEqual(yield* entriesOf(downData.transaction_id), [
          `organisation:${org.id}:-2.25`,
          "treasury:-:2.25"
        ])

        const before = yield* ledgerCount(c.tenant)
        const overdraw = yield* adjust(c.headers, org.id, { amount: -10.01, reason: "Too much" })
        assert.deepStrictEqual([overdraw.status, codeOf(overdraw.body)], [422, "INSUFFICIENT_BALANCE"])
        for (
          const [body, fields] of [
            [{ amount: 0, reason: "Nothing" }, ["amount"]],
            [{ amount: 1.005, reason: "Fractions" }, ["amount"]],
            [{ amount: -1_000_000.01, reason: "Huge" }, ["amount"]],
            [{ amount: "5", reason: "" }, ["amount", "reason"]],
            [{ amount: 5, reason: "x".repeat(501) }, ["reason"]],
            [{}, ["amount", "reason"]]
          ] as const
        ) {
          const res = yield* adjust(c.headers, org.id, body)
          assert.deepStrictEqual([res.status, codeOf(res.body)], [422, "VALIDATION_ERROR"], JSON.stringify(body))
          assert.sameMembers(fieldsOf(res.body), [...fields])
        }
        assert.strictEqual(yield* ledgerCount(c.tenant), before)
        assert.strictEqual((yield* getOne(c, org.id)).balance, 10)
        // Everything out again is allowed: zero is not negative.
        const empty = yield* adjust(c.headers, org.id, { amount: -10, reason: "Close the wallet" })
        assert.strictEqual(dataOf<{ balance: number }>(empty.body).balance, 0)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("Idempotency-Key: the same adjustment replays (moves once); another body with it is 409", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member)
        const key = randomUUID()
        const body = { amount: 4, reason: "Monthly budget" }
        const first = yield* adjust(c.headers, org.id, body, key)
        const again = yield* adjust(c.headers, org.id, body, key)
        assert.deepStrictEqual([first.status, again.status], [200, 200])
        assert.deepStrictEqual(again.body, first.body)
        const conflict = yield* adjust(c.headers, org.id, { ...body, amount: 5 }, key)
        assert.deepStrictEqual([conflict.status, codeOf(conflict.body)], [409, "IDEMPOTENCY_CONFLICT"])
        const otherOrg = yield* makeOrganisation(c.member)
        const elsewhere = yield* adjust(c.headers, otherOrg.id, body, key)
        assert.deepStrictEqual([elsewhere.status, codeOf(elsewhere.body)], [409, "IDEMPOTENCY_CONFLICT"])
        const burstKey = randomUUID()
        const burst = yield* Effect.all(
          Array.from({ length: 6 }, () => adjust(c.headers, org.id, { amount: 1, reason: "Burst" }, burstKey)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([...new Set(burst.map((r) => r.status))], [200])
        assert.strictEqual(new Set(burst.map((r) => dataOf<{ transaction_id: number }>(r.body).transaction_id)).size, 1)
        assert.strictEqual((yield* getOne(c, org.id)).balance, 5)
        assert.strictEqual(yield* ledgerCount(c.tenant), 2)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("transactions: adjustments newest first, directions from the organisation's side, cursor to the end", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const org = yield* makeOrganisation(c.member)
        const other = yield* makeOrganisation(c.member)
        const amounts = [5, -1, 3, -2.5, 0.75]
        const txIds: Array<number> = []
        for (const amount of amounts) {
          const res = yield* adjust(c.headers, org.id, { amount, reason: `Adjust ${amount}` })
          assert.strictEqual(res.status, 200, res.text)
          txIds.push(dataOf<{ transaction_id: number }>(res.body).transaction_id)
        }
        yield* adjust(c.headers, other.id, { amount: 9, reason: "Not this one" })
        const seen: Array<Tx> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const res = yield* call(
            "GET",
            `${ORGS}/${org.id}/wallet/transactions?per_page=2${cursor ? `&cursor=${cursor}` : ""}`,
            c.headers
          )
          assert.strictEqual(res.status, 200, res.text)
          const meta = metaOf<{ per_page: number; has_more: boolean; cursor?: string }>(res.body)
          cursor = meta.cursor
          assert.strictEqual(meta.has_more, cursor !== undefined)
          seen.push(...dataOf<Array<Tx>>(res.body))
          pages++
        } while (cursor)
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(seen.map((t) => t.id), [...txIds].reverse())
        assert.deepStrictEqual(
          seen.map((t) => [t.type, t.amount, t.direction, t.description]),
          [...amounts].reverse().map((a) => ["adjustment", Math.abs(a), a > 0 ? "in" : "out", `Adjust ${a}`])
        )
        const bad = yield* call("GET", `${ORGS}/${org.id}/wallet/transactions?cursor=!!`, c.headers)
        assert.deepStrictEqual([bad.status, fieldsOf(bad.body)], [422, ["cursor"]])
        const none = yield* call("GET", `${ORGS}/${other.id}/wallet/transactions`, c.headers)
        assert.deepStrictEqual(dataOf<Array<Tx>>(none.body).map((t) => [t.amount, t.direction]), [[9, "in"]])
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))
  })
})
