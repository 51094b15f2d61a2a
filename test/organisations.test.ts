import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { CursorMeta, Tenant } from "@timebank/domain"
import { OrganisationId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf, metaOf } from "./fixtures/bodies.js"
import { expectError, expectStatus, expectWire, ownAddressClient, pageCursor, wireClient } from "./fixtures/client.js"
import { actor, community as sharedCommunity, type CommunityOptions } from "./fixtures/community.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import {
  makeApplication,
  makeHours,
  makeMembership,
  makeOpportunity,
  makeOrganisation,
  makeReview
} from "./fixtures/volunteering.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ORGANISATIONS = "/api/v2/volunteering/organisations"
type Method = "GET" | "POST" | "PUT"
type Headers = Record<string, string>

/**
 * For what the typed client cannot express (odd input, exact wire shapes, headers); every request from an address
 * of its own, so the routes' per-IP limits never bite unless a test wants them to.
 */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/**
 * The shared community; Mia Member owns the organisations, and every actor calls organisation routes through a
 * client that sends each request from an address of its own (`clientFromAnyIp`).
 */
const community = (options: CommunityOptions = {}) =>
  Effect.gen(function*() {
    const c = yield* sharedCommunity(options)
    return {
      ...c,
      owner: c.member,
      ownerHeaders: c.memberHeaders,
      api: {
        admin: yield* ownAddressClient(c.admin),
        owner: yield* ownAddressClient(c.member),
        other: yield* ownAddressClient(c.other),
        visitor: yield* ownAddressClient(c.visitor)
      },
      // Clients that also keep the bodies as sent, for checks of the wire itself (made when used).
      wire: { owner: wireClient(c.member, { ownIp: true }), visitor: wireClient(c.visitor, { ownIp: true }) }
    }
  })

const DIRECTORY_KEYS = [
  "id",
  "name",
  "description",
  "logo_url",
  "website",
  "contact_email",
  "location",
  "opportunity_count",
  "volunteer_count",
  "total_hours",
  "average_rating",
  "created_at",
  "owner"
]

type Item = { id: number; name: string } & Record<string, unknown>

/** The directory as a visitor of `tenant` reads it on the wire (for its exact fields and odd query strings). */
const directory = (tenant: Tenant, query = "") =>
  Effect.map(call("GET", `${ORGANISATIONS}${query}`, tenantHeaders(tenant)), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return { items: dataOf<Array<Item>>(res.body), meta: metaOf(res.body) }
  })

/** A directory page through the typed client; `cursor` is the previous page's `meta.cursor`. */
type DirectoryQuery = { readonly per_page?: number; readonly search?: string; readonly cursor?: string }

const directoryPage = (tenant: Tenant, { cursor, ...params }: DirectoryQuery = {}) =>
  Effect.flatMap(
    ownAddressClient({ headers: tenantHeaders(tenant) }),
    (client) =>
      client.organisations.directory({
        urlParams: { ...params, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
      })
  )

const directoryIds = (tenant: Tenant, params: DirectoryQuery = {}) =>
  Effect.map(directoryPage(tenant, params), (page) => page.data.map((i) => i.id))

const organisationRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<Record<string, unknown>>`SELECT * FROM vol_organisations WHERE id = ${id}`.pipe(Effect.map((r) => r[0]))
  ).pipe(Effect.orDie)

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    )).pipe(Effect.orDie)

const registration = (name: string) => ({
  name,
  description: "We plant trees along the river every spring.",
  contact_email: "hello@example.org"
})

/** Reviews with the given ratings of `organisation`, each by a new member. */
const rate = (tenant: Tenant, organisation: { id: number }, ratings: ReadonlyArray<number>) =>
  Effect.forEach(
    ratings,
    (rating) =>
      Effect.flatMap(makeUser(tenant), (reviewer) =>
        makeReview(reviewer, { type: "organization", id: organisation.id }, rating))
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("organisations", (it) => {
  describe("directory and detail", () => {
    it.effect("items carry exactly the directory fields with every aggregate computed from known data", () =>
      Effect.gen(function*() {
        const { api, owner, tenant, wire } = yield* community()
        const org = yield* makeOrganisation(owner, {
          name: "River Friends",
          description: "Cleaning the river banks together.",
          website: "https://river.example.org"
        })
        const [open1, open2] = [yield* makeOpportunity(org), yield* makeOpportunity(org)]
        yield* makeOpportunity(org, { status: "closed" })
        const twice = yield* makeUser(tenant)
        const once = yield* makeUser(tenant)
        const pending = yield* makeUser(tenant)
        const declined = yield* makeUser(tenant)
        // Approved for two opportunities: one volunteer.
        yield* makeApplication(open1, twice, "approved")
        yield* makeApplication(open2, twice, "approved")
        yield* makeApplication(open1, once, "approved")
        yield* makeApplication(open1, pending, "pending")
        yield* makeApplication(open2, declined, "declined")
        yield* makeHours(org, twice, 1.5, "approved")
        yield* makeHours(org, once, 2.25, "approved")
        yield* makeHours(org, once, 5, "pending")
        yield* makeHours(org, twice, 3, "declined")
        yield* rate(tenant, org, [4, 4, 5])

        const half = yield* makeOrganisation(owner, { name: "Half Stars" })
        yield* rate(tenant, half, [4, 5])
        const low = yield* makeOrganisation(owner, { name: "Low Stars" })
        yield* rate(tenant, low, [1, 2])
        const quiet = yield* makeOrganisation(owner, { name: "Quiet Ones" })
        // Another tenant's data about the same ids must not count.
        const elsewhere = yield* makeUser(yield* makeTenant())
        yield* makeReview(elsewhere, { type: "organization", id: quiet.id }, 1)

        // Exactly these fields on the wire, none more.
        const listed = yield* (yield* wire.visitor).organisations.directory({ urlParams: {}, withResponse: true }).pipe(
          expectWire(200)
        )
        const items = dataOf<Array<Item>>(listed.body)
        const meta = metaOf(listed.body)
        assert.deepStrictEqual(items.map((i) => i.id), [quiet.id, low.id, half.id, org.id])
        assert.deepStrictEqual(meta, { per_page: 20, has_more: false })
        for (const item of items) assert.sameMembers(Object.keys(item), DIRECTORY_KEYS)
        const river = items[3]!
        assert.deepStrictEqual(river, {
          id: org.id,
          name: "River Friends",
          description: "Cleaning the river banks together.",
          logo_url: null,
          website: "https://river.example.org",
          contact_email: "contact@example.org",
          location: null,
          opportunity_count: 2,
          volunteer_count: 2,
          total_hours: 3.75,
          average_rating: 4.3,
          created_at: river.created_at,
          owner: { id: owner.id, first_name: "Mia", last_name: "Member", avatar_url: null }
        })
        assert.match(String(river.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        assert.strictEqual(items[2]!.average_rating, 4.5)
        assert.strictEqual(items[1]!.average_rating, 1.5)
        assert.include(items[0]!, {
          opportunity_count: 0,
          volunteer_count: 0,
          total_hours: 0,
          average_rating: null
        })

        const detail = yield* (yield* wire.visitor).organisations.get({ path: { id: org.id }, withResponse: true })
          .pipe(
            expectWire(200)
          )
        assert.deepStrictEqual(detail.body, { data: { ...river, review_count: 3 }, meta: {} })
        // The typed client decodes the same shapes.
        assert.strictEqual(detail.value.data.review_count, 3)
        const quietDetail = yield* api.visitor.organisations.get({ path: { id: quiet.id } })
        includes(quietDetail.data, { review_count: 0, average_rating: null })
      }))

    it.effect("pending and suspended organisations are absent from the directory and 404 on detail", () =>
      Effect.gen(function*() {
        const { api, owner, tenant } = yield* community()
        const active = yield* makeOrganisation(owner, { status: "active" })
        const legacy = yield* makeOrganisation(owner, { status: "approved" })
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        assert.deepStrictEqual(yield* directoryIds(tenant), [legacy.id, active.id])
        for (const org of [pending, suspended]) {
          yield* api.visitor.organisations.get({ path: { id: org.id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        yield* api.visitor.organisations.get({ path: { id: legacy.id }, withResponse: true }).pipe(expectStatus(200))
        // Not even its owner sees it here: "my organisations" is where they do.
        yield* api.owner.organisations.get({ path: { id: pending.id } }).pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("detail of another tenant's organisation, an unknown id or a bad id is 404", () =>
      Effect.gen(function*() {
        const { owner } = yield* community()
        const org = yield* makeOrganisation(owner)
        const stranger = tenantHeaders(yield* makeTenant())
        const strangerClient = yield* ownAddressClient({ headers: stranger })
        for (const id of [org.id, OrganisationId.make(99999999)]) {
          yield* strangerClient.organisations.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: ids the typed client cannot put in the path.
        for (const path of [`${ORGANISATIONS}/abc`, `${ORGANISATIONS}/0`]) {
          const res = yield* call("GET", path, stranger)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        assert.deepStrictEqual(yield* directoryIds(owner.tenant), [org.id])
      }))

    it.effect("cursor paging walks to the end: no duplicates, no gaps, no cursor on the last page", () =>
      Effect.gen(function*() {
        const { owner, tenant } = yield* community()
        const made: Array<number> = []
        for (let i = 0; i < 7; i++) made.push((yield* makeOrganisation(owner)).id)
        yield* makeOrganisation(owner, { status: "pending" })
        const seen: Array<number> = []
        const metas: Array<CursorMeta> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const { data, meta } = yield* directoryPage(tenant, {
            per_page: 3,
            ...(cursor === undefined ? {} : { cursor })
          })
          seen.push(...data.map((i) => i.id))
          metas.push(meta)
          cursor = meta.cursor
          if (cursor === undefined) break
        }
        assert.deepStrictEqual(seen, [...made].reverse())
        assert.deepStrictEqual(metas.map((m) => [m.per_page, m.has_more]), [[3, true], [3, true], [3, false]])
        assert.isString(metas[0]!.cursor)
        assert.notProperty(metas[2]!, "cursor")
        // Exactly a full last page: has_more false, no cursor.
        const six = yield* directoryPage(tenant, { per_page: 6, cursor: metas[0]!.cursor! })
        assert.deepStrictEqual(six.data.map((i) => i.id), [...made].reverse().slice(3))
        assert.deepStrictEqual(six.meta, { per_page: 6, has_more: false })
      }))

    it.effect("per_page is clamped to 1..50 (default 20); text is 422; a bad cursor is 422 on field cursor", () =>
      Effect.gen(function*() {
        const { owner, tenant } = yield* community()
        for (let i = 0; i < 3; i++) yield* makeOrganisation(owner)
        // Raw: page sizes out of range, which the typed client would not send.
        const zero = yield* directory(tenant, "?per_page=0")
        assert.strictEqual(zero.items.length, 1)
        assert.strictEqual(zero.meta.per_page, 1)
        assert.strictEqual(zero.meta.has_more, true)
        assert.strictEqual((yield* directory(tenant, "?per_page=-5")).meta.per_page, 1)
        const big = yield* directory(tenant, "?per_page=500")
        assert.strictEqual(big.meta.per_page, 50)
        assert.strictEqual(big.items.length, 3)
        assert.strictEqual((yield* directoryPage(tenant)).meta.per_page, 20)
        for (
          const [query, field] of [
            ["?per_page=abc", "per_page"],
            ["?per_page=2.5", "per_page"],
            ["?cursor=not-a-cursor!", "cursor"],
            [`?cursor=${Buffer.from("\"x\"").toString("base64url")}`, "cursor"],
            [`?cursor=${Buffer.from("-4").toString("base64url")}`, "cursor"]
          ] as const
        ) {
          const res = yield* call("GET", `${ORGANISATIONS}${query}`, tenantHeaders(tenant))
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
      }))

    it.effect("search matches name or description case-insensitively, with % and _ taken literally", () =>
      Effect.gen(function*() {
        const { owner, tenant } = yield* community()
        const percent = yield* makeOrganisation(owner, { name: "100% Green" })
        const underscore = yield* makeOrganisation(owner, { name: "Green_Team" })
        const plain = yield* makeOrganisation(owner, { name: "Greenery Club" })
        const byDescription = yield* makeOrganisation(owner, {
          name: "Tool Library",
          description: "Lending tools for GREEN projects in town."
        })
        yield* makeOrganisation(owner, { name: "Food Bank", description: "Sharing meals with neighbours nearby." })
        yield* makeOrganisation(owner, { name: "Greenwood Hidden", status: "pending" })
        const q = (search: string) => directoryIds(tenant, { search })
        assert.deepStrictEqual(yield* q("green"), [byDescription.id, plain.id, underscore.id, percent.id])
        assert.deepStrictEqual(yield* q("gREEN"), [byDescription.id, plain.id, underscore.id, percent.id])
        assert.deepStrictEqual(yield* q("%"), [percent.id])
        assert.deepStrictEqual(yield* q("_"), [underscore.id])
        // As wildcards these would match "Greenery Club"; taken literally they match nothing.
        assert.deepStrictEqual(yield* q("e_n"), [])
        assert.deepStrictEqual(yield* q("y%c"), [])
        assert.deepStrictEqual(yield* q("0% g"), [percent.id])
        assert.deepStrictEqual(yield* q("nothing like this"), [])
        // Paging keeps the search.
        const first = yield* directoryPage(tenant, { search: "green", per_page: 2 })
        assert.deepStrictEqual(first.data.map((i) => i.id), [byDescription.id, plain.id])
        const second = yield* directoryPage(tenant, { search: "green", per_page: 2, cursor: first.meta.cursor! })
        assert.deepStrictEqual(second.data.map((i) => i.id), [underscore.id, percent.id])
        assert.deepStrictEqual(second.meta, { per_page: 2, has_more: false })
      }))

    it.effect("directory and detail are public and carry their per-IP limits (60 and 120 a minute)", () =>
      Effect.gen(function*() {
        // Raw throughout: the rate-limit headers and one fixed address.
        const { owner, tenant } = yield* community()
        const org = yield* makeOrganisation(owner)
        const ip = fromIp(randomIp())
        const listed = yield* rawRequest("GET", ORGANISATIONS, { headers: { ...tenantHeaders(tenant), ...ip } })
        assert.strictEqual(listed.headers["x-ratelimit-limit"], "60")
        assert.strictEqual(listed.headers["x-ratelimit-remaining"], "59")
        const got = yield* rawRequest("GET", `${ORGANISATIONS}/${org.id}`, {
          headers: { ...tenantHeaders(tenant), ...ip }
        })
        assert.strictEqual(got.headers["x-ratelimit-limit"], "120")
        assert.strictEqual(got.headers["x-ratelimit-remaining"], "119")
        // The 61st directory request of one address within the minute is refused.
        for (let i = 2; i <= 60; i++) {
          const res = yield* rawRequest("GET", ORGANISATIONS, { headers: { ...tenantHeaders(tenant), ...ip } })
          assert.strictEqual(res.status, 200, `request ${i}: ${res.text}`)
        }
        const limited = yield* rawRequest("GET", ORGANISATIONS, { headers: { ...tenantHeaders(tenant), ...ip } })
        assert.strictEqual(limited.status, 429, limited.text)
        assert.strictEqual(codeOf(limited.body), "RATE_LIMITED")
        assert.isAtLeast(Number(limited.headers["retry-after"]), 1)
        // The detail budget is separate.
        const detail = yield* rawRequest("GET", `${ORGANISATIONS}/${org.id}`, {
          headers: { ...tenantHeaders(tenant), ...ip }
        })
        assert.strictEqual(detail.status, 200, detail.text)
      }))
  })

  describe("registration", () => {
    it.effect("POST registers a pending organisation owned by the caller (201), with its owner membership and event", () =>
      Effect.gen(function*() {
        const { api, owner, ownerHeaders, tenant, wire } = yield* community()
        // Raw: the name is trimmed by the server, and the answer must have exactly these fields.
        const res = yield* call(
          "POST",
          ORGANISATIONS,
          ownerHeaders,
          { ...registration("  Tree Planters  "), website: "https://trees.example.org", location: "Riverside" }
        )
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<Item & { created_at: string; slug: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            name: "Tree Planters",
            description: "We plant trees along the river every spring.",
            logo_url: null,
            website: "https://trees.example.org",
            contact_email: "hello@example.org",
            location: "Riverside",
            opportunity_count: 0,
            volunteer_count: 0,
            total_hours: 0,
            average_rating: null,
            created_at: created.created_at,
            owner: { id: owner.id, first_name: "Mia", last_name: "Member", avatar_url: null },
            review_count: 0,
            slug: "tree-planters",
            status: "pending",
            role: "owner"
          },
          meta: {}
        })
        assert.include(yield* organisationRow(created.id), {
          tenant_id: String(tenant.id),
          user_id: String(owner.id),
          status: "pending",
          auto_pay_enabled: false
        })
        const members = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ user_id: string; role: string; status: string; org_type: string }>`
            SELECT user_id, role, status, org_type FROM vol_organisation_members WHERE organisation_id = ${created.id}`
        )
          .pipe(Effect.orDie)
        assert.deepStrictEqual(members, [{
          user_id: String(owner.id),
          role: "owner",
          status: "active",
          org_type: "volunteer"
        }])
        assert.deepInclude(yield* eventsOf(tenant, "OrganisationRegistered"), {
          organisation_id: created.id,
          user_id: owner.id,
          name: "Tree Planters",
          status: "pending",
          created_by: owner.id
        })
        // Not public while pending; listed in the owner's organisations.
        assert.deepStrictEqual(yield* directoryIds(tenant), [])
        yield* api.visitor.organisations.get({ path: { id: OrganisationId.make(created.id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        // The same item, exactly, on the wire.
        const mine = yield* (yield* wire.owner).organisations.mine({ withResponse: true }).pipe(expectWire(200))
        assert.deepStrictEqual(dataOf<unknown>(mine.body), [dataOf<unknown>(res.body)])
      }))

    it.effect("validation lists every bad field; wrong types are 422; nothing is written", () =>
      Effect.gen(function*() {
        const { api, ownerHeaders } = yield* community()
        // Raw: bodies the contract refuses, which the typed client would not send.
        const cases: Array<readonly [unknown, ReadonlyArray<string>]> = [
          [
            { name: "ab", description: "too short", contact_email: "not-an-email", website: "ftp://files.example.org" },
            ["name", "description", "contact_email", "website"]
          ],
          [{ name: 123, description: ["x"], contact_email: true }, ["name", "description", "contact_email"]],
          [{}, ["name", "description", "contact_email"]],
          [registration("x".repeat(201)), ["name"]],
          [registration("   ab   "), ["name"]],
          [{ ...registration("Okay name"), description: `   ${"y".repeat(19)}   ` }, ["description"]],
          [{ ...registration("Okay name"), website: "javascript:alert(1)" }, ["website"]],
          [{ ...registration("Okay name"), website: "trees.example.org" }, ["website"]],
          [{ ...registration("Okay name"), website: 42 }, ["website"]],
          [{ ...registration("Okay name"), logo_url: "file:///etc/passwd" }, ["logo_url"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("POST", ORGANISATIONS, ownerHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.isTrue(errorsOf(res.body).every((e) => e.code === "VALIDATION_ERROR"))
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        const notJson = yield* rawRequest("POST", ORGANISATIONS, {
          headers: { ...ownerHeaders, ...fromIp(randomIp()) },
          body: "{nope"
        })
        assert.strictEqual(notJson.status, 400)
        const mine = yield* api.owner.organisations.mine()
        assert.deepStrictEqual(mine.data, [])
      }))

    it.effect("a name taken in the community (any case, any status) is 409 ALREADY_EXISTS on field name", () =>
      Effect.gen(function*() {
        const { api, otherHeaders, owner } = yield* community()
        yield* api.owner.organisations.register({ payload: registration("Green Hands"), withResponse: true }).pipe(
          expectStatus(201)
        )
        for (const name of ["green hands", "Green Hands"]) {
          const taken = yield* api.other.organisations.register({ payload: registration(name) }).pipe(
            expectError(409, "ALREADY_EXISTS")
          )
          assert.deepStrictEqual(taken.fields, ["name"], name)
        }
        // Raw: a name with spaces around it, trimmed by the server.
        const spaced = yield* call("POST", ORGANISATIONS, otherHeaders, registration("  GREEN HANDS "))
        assert.strictEqual(spaced.status, 409, spaced.text)
        assert.deepStrictEqual(errorsOf(spaced.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        yield* makeOrganisation(owner, { name: "Suspended Club", status: "suspended" })
        yield* api.other.organisations.register({ payload: registration("SUSPENDED club") }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        // Another community may use it.
        const elsewhere = yield* ownAddressClient(yield* actor(yield* makeUser(yield* makeTenant())))
        yield* elsewhere.organisations.register({ payload: registration("Green Hands"), withResponse: true }).pipe(
          expectStatus(201)
        )
        assert.deepStrictEqual((yield* api.other.organisations.mine()).data, [])
      }))

    it.effect("a name that slugifies like an existing one registers with a suffixed slug", () =>
      Effect.gen(function*() {
        const { api } = yield* community()
        const first = yield* api.owner.organisations.register({
          payload: registration("Green Hands!"),
          withResponse: true
        }).pipe(expectStatus(201))
        assert.strictEqual(first.data.slug, "green-hands")
        const second = yield* api.other.organisations.register({
          payload: registration("Green Hands?"),
          withResponse: true
        }).pipe(expectStatus(201))
        assert.match(second.data.slug, /^green-hands-[0-9a-f]{6}$/)
        assert.strictEqual(second.data.name, "Green Hands?")
      }))

    it.effect("needs a token (401); a platform super-admin visiting the community may not register (403)", () =>
      Effect.gen(function*() {
        const { api, tenant } = yield* community()
        yield* api.visitor.organisations.register({ payload: registration("No Token Club") }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
        const visiting = yield* ownAddressClient({ headers: yield* authHeaders(yield* makeSuperAdmin(), tenant) })
        yield* visiting.organisations.register({ payload: registration("Visiting Club") }).pipe(
          expectError(403, "FORBIDDEN")
        )
        yield* api.visitor.organisations.mine().pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("the 6th registration from one IP within a minute is 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { api, ownerHeaders } = yield* community()
        // Raw: the rate-limit headers, from one fixed address.
        const ip = fromIp(randomIp())
        for (let i = 1; i <= 5; i++) {
          const res = yield* rawRequest("POST", ORGANISATIONS, {
            headers: { ...ownerHeaders, ...ip },
            body: JSON.stringify(registration(`Limited Club ${i}`))
          })
          assert.strictEqual(res.status, 201, `registration ${i}: ${res.text}`)
          assert.strictEqual(res.headers["x-ratelimit-limit"], "5")
          assert.strictEqual(res.headers["x-ratelimit-remaining"], String(5 - i))
        }
        const sixth = yield* rawRequest("POST", ORGANISATIONS, {
          headers: { ...ownerHeaders, ...ip },
          body: JSON.stringify(registration("Limited Club 6"))
        })
        assert.strictEqual(sixth.status, 429, sixth.text)
        assert.deepStrictEqual(errorsOf(sixth.body).map((e) => e.code), ["RATE_LIMITED"])
        const retryAfter = Number(sixth.headers["retry-after"])
        assert.isTrue(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${retryAfter}`)
        assert.strictEqual(sixth.headers["x-ratelimit-limit"], "5")
        assert.strictEqual(sixth.headers["x-ratelimit-remaining"], "0")
        assert.isAtLeast(Number(sixth.headers["x-ratelimit-reset"]), Math.floor(Date.now() / 1000))
        assert.strictEqual((yield* api.owner.organisations.mine()).data.length, 5)
        // Another address still may.
        yield* api.owner.organisations.register({ payload: registration("Limited Club 7"), withResponse: true }).pipe(
          expectStatus(201)
        )
      }))
  })

  describe("my organisations", () => {
    it.effect("lists what the caller created or runs as an active owner or admin, any status, with the role", () =>
      Effect.gen(function*() {
        const { api, other, owner, tenant, wire } = yield* community()
        const created = yield* makeOrganisation(owner, { status: "pending" })
        const theirs = yield* makeOrganisation(other, { status: "suspended" })
        yield* makeMembership(theirs, owner, "admin")
        const asMember = yield* makeOrganisation(other)
        yield* makeMembership(asMember, owner, "member")
        const removed = yield* makeOrganisation(other)
        yield* makeMembership(removed, owner, "admin", "removed")
        const invited = yield* makeOrganisation(other)
        yield* makeMembership(invited, owner, "owner", "invited")
        yield* makeOpportunity(created)

        // On the wire, for what it must not carry (balance, auto-pay).
        const res = yield* (yield* wire.owner).organisations.mine({ withResponse: true }).pipe(expectWire(200))
        const items = dataOf<Array<Item & { role: string; status: string; slug: string }>>(res.body)
        assert.deepStrictEqual(
          items.map((i) => [i.id, i.role, i.status]),
          [[theirs.id, "admin", "suspended"], [created.id, "owner", "pending"]]
        )
        assert.include(items[1]!, { opportunity_count: 1, review_count: 0 })
        assert.isString(items[1]!.slug)
        assert.notProperty(items[1]!, "balance")
        assert.notProperty(items[1]!, "auto_pay_enabled")
        const others = (yield* api.other.organisations.mine()).data
        assert.deepStrictEqual(others.map((i) => [i.id, i.role]), [
          [invited.id, "owner"],
          [removed.id, "owner"],
          [asMember.id, "owner"],
          [theirs.id, "owner"]
        ])
        const none = yield* (yield* actor(yield* makeUser(tenant))).client.organisations.mine()
        assert.deepStrictEqual(none, { data: [], meta: {} })
      }))
  })

  describe("update", () => {
    it.effect("the creator, an owner and an admin member edit the profile; the answer carries their role", () =>
      Effect.gen(function*() {
        const { api, other, owner, ownerHeaders, tenant } = yield* community()
        const org = yield* makeOrganisation(owner, { name: "Before Name", website: "https://before.example.org" })
        // Raw: the name is trimmed by the server.
        const res = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, ownerHeaders, {
          name: "  After Name ",
          description: "A new description that is long enough.",
          website: null,
          location: "Old Town"
        })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), {
          id: org.id,
          name: "After Name",
          description: "A new description that is long enough.",
          website: null,
          location: "Old Town",
          contact_email: "contact@example.org",
          role: "owner",
          status: "active"
        })
        const seen = yield* api.visitor.organisations.get({ path: { id: org.id } })
        includes(seen.data, { name: "After Name", website: null, location: "Old Town" })
        assert.deepInclude(yield* eventsOf(tenant, "OrganisationUpdated"), {
          organisation_id: org.id,
          fields: ["name", "description", "website", "location"],
          updated_by: owner.id
        })

        yield* makeMembership(org, other, "admin")
        const byAdmin = yield* api.other.organisations.update({
          path: { id: org.id },
          payload: { contact_email: "new@example.org" },
          withResponse: true
        }).pipe(expectStatus(200))
        includes(byAdmin.data, { contact_email: "new@example.org", role: "admin" })

        const coOwner = yield* actor(yield* makeUser(tenant))
        yield* makeMembership(org, coOwner, "owner")
        const byCoOwner = yield* coOwner.client.organisations.update({
          path: { id: org.id },
          payload: { location: null }
        })
        includes(byCoOwner.data, { location: null, role: "owner" })

        // A site super-admin manages any organisation; without a membership they answer as `admin`.
        const superAdmin = yield* ownAddressClient({ headers: yield* authHeaders(yield* makeSuperAdmin(), tenant) })
        const bySuper = yield* superAdmin.organisations.update({
          path: { id: org.id },
          payload: { name: "Super Name" },
          withResponse: true
        }).pipe(expectStatus(200))
        includes(bySuper.data, { name: "Super Name", role: "admin" })

        // An empty body changes nothing and still answers the organisation.
        const empty = yield* api.owner.organisations.update({ path: { id: org.id }, payload: {}, withResponse: true })
          .pipe(expectStatus(200))
        includes(empty.data, { name: "Super Name" })
      }))

    it.effect("a plain member, a `member`-role member, an inactive admin and a community admin are refused (403)", () =>
      Effect.gen(function*() {
        const { api, owner, tenant } = yield* community()
        const org = yield* makeOrganisation(owner, { name: "Guarded Org" })
        const memberRole = yield* actor(yield* makeUser(tenant))
        yield* makeMembership(org, memberRole, "member")
        const pendingAdmin = yield* actor(yield* makeUser(tenant))
        yield* makeMembership(org, pendingAdmin, "admin", "pending")
        for (const client of [api.other, memberRole.client, pendingAdmin.client, api.admin]) {
          yield* client.organisations.update({ path: { id: org.id }, payload: { name: "Taken Over" } }).pipe(
            expectError(403, "FORBIDDEN")
          )
        }
        assert.include(yield* organisationRow(org.id), { name: "Guarded Org" })
        yield* api.visitor.organisations.update({ path: { id: org.id }, payload: { name: "X Y Z" } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
      }))

    it.effect("another tenant's or an unknown organisation is 404; a suspended one is 403; pending is editable", () =>
      Effect.gen(function*() {
        const { api, owner, ownerHeaders } = yield* community()
        const stranger = yield* community()
        const foreign = yield* makeOrganisation(stranger.owner, { name: "Foreign Org" })
        for (const id of [foreign.id, OrganisationId.make(99999999)]) {
          yield* api.owner.organisations.update({ path: { id }, payload: { name: "Hijacked" } }).pipe(
            expectError(404, "NOT_FOUND")
          )
        }
        // Raw: an id the typed client cannot put in the path.
        const bad = yield* call("PUT", `${ORGANISATIONS}/x`, ownerHeaders, { name: "Hijacked" })
        assert.strictEqual(bad.status, 404, bad.text)
        assert.strictEqual(codeOf(bad.body), "NOT_FOUND")
        assert.include(yield* organisationRow(foreign.id), { name: "Foreign Org" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended", name: "Frozen Org" })
        yield* api.owner.organisations.update({ path: { id: suspended.id }, payload: { name: "Thawed Org" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.include(yield* organisationRow(suspended.id), { name: "Frozen Org" })
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const edited = yield* api.owner.organisations.update({
          path: { id: pending.id },
          payload: { location: "Harbour" },
          withResponse: true
        }).pipe(expectStatus(200))
        includes(edited.data, { location: "Harbour", status: "pending" })
      }))

    it.effect("a taken name is 409 on field name; bad fields are 422 each", () =>
      Effect.gen(function*() {
        const { api, owner, ownerHeaders } = yield* community()
        yield* makeOrganisation(owner, { name: "First Org" })
        const second = yield* makeOrganisation(owner, { name: "Second Org" })
        const taken = yield* api.owner.organisations.update({ path: { id: second.id }, payload: { name: "FIRST org" } })
          .pipe(expectError(409, "ALREADY_EXISTS"))
        assert.deepStrictEqual(taken.errors.map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        // Its own name in another case is fine.
        yield* api.owner.organisations.update({
          path: { id: second.id },
          payload: { name: "SECOND ORG" },
          withResponse: true
        }).pipe(expectStatus(200))
        // Raw: fields the contract refuses, which the typed client would not send.
        const bad = yield* call("PUT", `${ORGANISATIONS}/${second.id}`, ownerHeaders, {
          name: "x",
          description: "short",
          contact_email: "nope",
          website: "ftp://x.example.org",
          location: 5
        })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.sameMembers(fieldsOf(bad.body), ["name", "description", "contact_email", "website", "location"])
        assert.include(yield* organisationRow(second.id), { name: "SECOND ORG" })
      }))
  })

  describe("feature gate", () => {
    it.effect("with volunteering switched off every organisation route is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { api, owner } = yield* community({ features: { volunteering: false } })
        const org = yield* makeOrganisation(owner, { name: "Gated Org" })
        const gated = expectError(403, "FEATURE_DISABLED")
        yield* api.visitor.organisations.directory({ urlParams: {} }).pipe(gated)
        yield* api.visitor.organisations.get({ path: { id: org.id } }).pipe(gated)
        yield* api.owner.organisations.mine().pipe(gated)
        yield* api.owner.organisations.register({ payload: registration("Gated Newcomer") }).pipe(gated)
        yield* api.owner.organisations.update({ path: { id: org.id }, payload: { name: "Gated Rename" } }).pipe(gated)
        assert.include(yield* organisationRow(org.id), { name: "Gated Org" })
      }))

    it.effect("switching volunteering off through the admin config closes the directory at once", () =>
      Effect.gen(function*() {
        const { admin, owner, tenant } = yield* community()
        yield* makeOrganisation(owner)
        assert.strictEqual((yield* directoryIds(tenant)).length, 1)
        yield* admin.client.adminConfig.setFeature({
          payload: { feature: "volunteering", enabled: false },
          withResponse: true
        }).pipe(expectStatus(200))
        yield* directoryPage(tenant).pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })
})
