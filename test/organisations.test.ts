import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf, type Meta, metaOf } from "./fixtures/bodies.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"
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
const MINE = "/api/v2/volunteering/my-organisations"
type Method = "GET" | "POST" | "PUT"
type Headers = Record<string, string>

/** Every request from an address of its own, so the routes' per-IP limits never bite unless a test wants them to. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** A community with an admin, an organisation owner and another member, all signed in. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant(overrides)
    const admin = yield* makeAdmin(tenant, { firstName: "Ada", lastName: "Admin" })
    const owner = yield* makeUser(tenant, { firstName: "Olga", lastName: "Owner" })
    const other = yield* makeUser(tenant, { firstName: "Otto", lastName: "Other" })
    return {
      tenant,
      admin,
      owner,
      other,
      adminHeaders: yield* authHeaders(admin),
      ownerHeaders: yield* authHeaders(owner),
      otherHeaders: yield* authHeaders(other),
      anonymous: tenantHeaders(tenant)
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

const directory = (tenant: Tenant, query = "") =>
  Effect.map(call("GET", `${ORGANISATIONS}${query}`, tenantHeaders(tenant)), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return { items: dataOf<Array<Item>>(res.body), meta: metaOf(res.body) }
  })

const directoryIds = (tenant: Tenant, query = "") =>
  Effect.map(directory(tenant, query), (p) => p.items.map((i) => i.id))

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

const registration = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: "We plant trees along the river every spring.",
  contact_email: "hello@example.org",
  ...extra
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
        const { owner, tenant } = yield* community()
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

        const { items, meta } = yield* directory(tenant)
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
          owner: { id: owner.id, first_name: "Olga", last_name: "Owner", avatar_url: null }
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

        const detail = yield* call("GET", `${ORGANISATIONS}/${org.id}`, tenantHeaders(tenant))
        assert.strictEqual(detail.status, 200, detail.text)
        assert.deepStrictEqual(detail.body, { data: { ...river, review_count: 3 }, meta: {} })
        const quietDetail = yield* call("GET", `${ORGANISATIONS}/${quiet.id}`, tenantHeaders(tenant))
        includes(dataOf(quietDetail.body), { review_count: 0, average_rating: null })

        // The typed client decodes the same shapes.
        const client = yield* apiClient({ ...tenantHeaders(tenant), ...fromIp(randomIp()) })
        const typed = yield* client.organisations.get({ path: { id: org.id as never } })
        assert.strictEqual(typed.data.review_count, 3)
      }))

    it.effect("pending and suspended organisations are absent from the directory and 404 on detail", () =>
      Effect.gen(function*() {
        const { anonymous, owner, ownerHeaders, tenant } = yield* community()
        const active = yield* makeOrganisation(owner, { status: "active" })
        const legacy = yield* makeOrganisation(owner, { status: "approved" })
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        assert.deepStrictEqual(yield* directoryIds(tenant), [legacy.id, active.id])
        for (const org of [pending, suspended]) {
          const res = yield* call("GET", `${ORGANISATIONS}/${org.id}`, anonymous)
          assert.strictEqual(res.status, 404, res.text)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        assert.strictEqual((yield* call("GET", `${ORGANISATIONS}/${legacy.id}`, anonymous)).status, 200)
        // Not even its owner sees it here: "my organisations" is where they do.
        assert.strictEqual((yield* call("GET", `${ORGANISATIONS}/${pending.id}`, ownerHeaders)).status, 404)
      }))

    it.effect("detail of another tenant's organisation, an unknown id or a bad id is 404", () =>
      Effect.gen(function*() {
        const { owner } = yield* community()
        const org = yield* makeOrganisation(owner)
        const stranger = tenantHeaders(yield* makeTenant())
        for (
          const path of [
            `${ORGANISATIONS}/${org.id}`,
            `${ORGANISATIONS}/99999999`,
            `${ORGANISATIONS}/abc`,
            `${ORGANISATIONS}/0`
          ]
        ) {
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
        const metas: Array<Meta> = []
        let query = "?per_page=3"
        for (let page = 0; page < 10; page++) {
          const { items, meta } = yield* directory(tenant, query)
          seen.push(...items.map((i) => i.id))
          metas.push(meta)
          if (meta.cursor === undefined) break
          query = `?per_page=3&cursor=${encodeURIComponent(meta.cursor)}`
        }
        assert.deepStrictEqual(seen, [...made].reverse())
        assert.deepStrictEqual(metas.map((m) => [m.per_page, m.has_more]), [[3, true], [3, true], [3, false]])
        assert.isString(metas[0]!.cursor)
        assert.notProperty(metas[2]!, "cursor")
        // Exactly a full last page: has_more false, no cursor.
        const six = yield* directory(tenant, `?per_page=6&cursor=${encodeURIComponent(metas[0]!.cursor!)}`)
        assert.deepStrictEqual(six.items.map((i) => i.id), [...made].reverse().slice(3))
        assert.deepStrictEqual(six.meta, { per_page: 6, has_more: false })
      }))

    it.effect("per_page is clamped to 1..50 (default 20); text is 422; a bad cursor is 422 on field cursor", () =>
      Effect.gen(function*() {
        const { owner, tenant } = yield* community()
        for (let i = 0; i < 3; i++) yield* makeOrganisation(owner)
        const zero = yield* directory(tenant, "?per_page=0")
        assert.strictEqual(zero.items.length, 1)
        assert.strictEqual(zero.meta.per_page, 1)
        assert.strictEqual(zero.meta.has_more, true)
        assert.strictEqual((yield* directory(tenant, "?per_page=-5")).meta.per_page, 1)
        const big = yield* directory(tenant, "?per_page=500")
        assert.strictEqual(big.meta.per_page, 50)
        assert.strictEqual(big.items.length, 3)
        assert.strictEqual((yield* directory(tenant)).meta.per_page, 20)
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
        const q = (search: string) => directoryIds(tenant, `?search=${encodeURIComponent(search)}`)
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
        const first = yield* directory(tenant, "?search=green&per_page=2")
        assert.deepStrictEqual(first.items.map((i) => i.id), [byDescription.id, plain.id])
        const second = yield* directory(tenant, `?search=green&per_page=2&cursor=${first.meta.cursor!}`)
        assert.deepStrictEqual(second.items.map((i) => i.id), [underscore.id, percent.id])
        assert.deepStrictEqual(second.meta, { per_page: 2, has_more: false })
      }))

    it.effect("directory and detail are public and carry their per-IP limits (60 and 120 a minute)", () =>
      Effect.gen(function*() {
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
        const { anonymous, owner, ownerHeaders, tenant } = yield* community()
        const res = yield* call(
          "POST",
          ORGANISATIONS,
          ownerHeaders,
          registration("  Tree Planters  ", {
            website: "https://trees.example.org",
            location: "Riverside"
          })
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
            owner: { id: owner.id, first_name: "Olga", last_name: "Owner", avatar_url: null },
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
        assert.strictEqual((yield* call("GET", `${ORGANISATIONS}/${created.id}`, anonymous)).status, 404)
        const mine = yield* call("GET", MINE, ownerHeaders)
        assert.deepStrictEqual(dataOf<unknown>(mine.body), [dataOf<unknown>(res.body)])
      }))

    it.effect("validation lists every bad field; wrong types are 422; nothing is written", () =>
      Effect.gen(function*() {
        const { owner, ownerHeaders } = yield* community()
        const cases: Array<readonly [unknown, ReadonlyArray<string>]> = [
          [
            { name: "ab", description: "too short", contact_email: "not-an-email", website: "ftp://files.example.org" },
            ["name", "description", "contact_email", "website"]
          ],
          [{ name: 123, description: ["x"], contact_email: true }, ["name", "description", "contact_email"]],
          [{}, ["name", "description", "contact_email"]],
          [registration("x".repeat(201)), ["name"]],
          [registration("   ab   "), ["name"]],
          [registration("Okay name", { description: `   ${"y".repeat(19)}   ` }), ["description"]],
          [registration("Okay name", { website: "javascript:alert(1)" }), ["website"]],
          [registration("Okay name", { website: "trees.example.org" }), ["website"]],
          [registration("Okay name", { website: 42 }), ["website"]],
          [registration("Okay name", { logo_url: "file:///etc/passwd" }), ["logo_url"]]
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
        const mine = yield* call("GET", MINE, ownerHeaders)
        assert.deepStrictEqual(dataOf<unknown>(mine.body), [])
        void owner
      }))

    it.effect("a name taken in the community (any case, any status) is 409 ALREADY_EXISTS on field name", () =>
      Effect.gen(function*() {
        const { other, otherHeaders, owner, ownerHeaders, tenant } = yield* community()
        const first = yield* call("POST", ORGANISATIONS, ownerHeaders, registration("Green Hands"))
        assert.strictEqual(first.status, 201, first.text)
        for (const name of ["green hands", "  GREEN HANDS ", "Green Hands"]) {
          const res = yield* call("POST", ORGANISATIONS, otherHeaders, registration(name))
          assert.strictEqual(res.status, 409, `${name}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        }
        yield* makeOrganisation(owner, { name: "Suspended Club", status: "suspended" })
        const suspendedName = yield* call("POST", ORGANISATIONS, otherHeaders, registration("SUSPENDED club"))
        assert.strictEqual(suspendedName.status, 409)
        // Another community may use it.
        const elsewhere = yield* makeUser(yield* makeTenant())
        const free = yield* call("POST", ORGANISATIONS, yield* authHeaders(elsewhere), registration("Green Hands"))
        assert.strictEqual(free.status, 201, free.text)
        assert.deepStrictEqual(
          dataOf<unknown>(yield* call("GET", MINE, otherHeaders).pipe(Effect.map((r) => r.body))),
          []
        )
        void other
        void tenant
      }))

    it.effect("a name that slugifies like an existing one registers with a suffixed slug", () =>
      Effect.gen(function*() {
        const { otherHeaders, ownerHeaders } = yield* community()
        const first = yield* call("POST", ORGANISATIONS, ownerHeaders, registration("Green Hands!"))
        assert.strictEqual(first.status, 201, first.text)
        assert.strictEqual(dataOf<{ slug: string }>(first.body).slug, "green-hands")
        const second = yield* call("POST", ORGANISATIONS, otherHeaders, registration("Green Hands?"))
        assert.strictEqual(second.status, 201, second.text)
        assert.match(dataOf<{ slug: string }>(second.body).slug, /^green-hands-[0-9a-f]{6}$/)
        assert.strictEqual(dataOf<{ name: string }>(second.body).name, "Green Hands?")
      }))

    it.effect("needs a token (401); a platform super-admin visiting the community may not register (403)", () =>
      Effect.gen(function*() {
        const { anonymous, tenant } = yield* community()
        const unauthenticated = yield* call("POST", ORGANISATIONS, anonymous, registration("No Token Club"))
        assert.strictEqual(unauthenticated.status, 401)
        assert.strictEqual(codeOf(unauthenticated.body), "AUTH_REQUIRED")
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
        const visiting = yield* call("POST", ORGANISATIONS, superHeaders, registration("Visiting Club"))
        assert.strictEqual(visiting.status, 403, visiting.text)
        assert.strictEqual(codeOf(visiting.body), "FORBIDDEN")
        assert.strictEqual((yield* call("GET", MINE, anonymous)).status, 401)
      }))

    it.effect("the 6th registration from one IP within a minute is 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { ownerHeaders } = yield* community()
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
        const mine = yield* call("GET", MINE, ownerHeaders)
        assert.strictEqual(dataOf<Array<unknown>>(mine.body).length, 5)
        // Another address still may.
        const fresh = yield* call("POST", ORGANISATIONS, ownerHeaders, registration("Limited Club 7"))
        assert.strictEqual(fresh.status, 201, fresh.text)
      }))
  })

  describe("my organisations", () => {
    it.effect("lists what the caller created or runs as an active owner or admin, any status, with the role", () =>
      Effect.gen(function*() {
        const { other, otherHeaders, owner, ownerHeaders, tenant } = yield* community()
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

        const res = yield* call("GET", MINE, ownerHeaders)
        assert.strictEqual(res.status, 200, res.text)
        const items = dataOf<Array<Item & { role: string; status: string; slug: string }>>(res.body)
        assert.deepStrictEqual(
          items.map((i) => [i.id, i.role, i.status]),
          [[theirs.id, "admin", "suspended"], [created.id, "owner", "pending"]]
        )
        assert.include(items[1]!, { opportunity_count: 1, review_count: 0 })
        assert.isString(items[1]!.slug)
        assert.notProperty(items[1]!, "balance")
        assert.notProperty(items[1]!, "auto_pay_enabled")
        const others = dataOf<Array<Item & { role: string }>>((yield* call("GET", MINE, otherHeaders)).body)
        assert.deepStrictEqual(others.map((i) => [i.id, i.role]), [
          [invited.id, "owner"],
          [removed.id, "owner"],
          [asMember.id, "owner"],
          [theirs.id, "owner"]
        ])
        const none = yield* call("GET", MINE, yield* authHeaders(yield* makeUser(tenant)))
        assert.deepStrictEqual(none.body, { data: [], meta: {} })
      }))
  })

  describe("update", () => {
    it.effect("the creator, an owner and an admin member edit the profile; the answer carries their role", () =>
      Effect.gen(function*() {
        const { anonymous, other, otherHeaders, owner, ownerHeaders, tenant } = yield* community()
        const org = yield* makeOrganisation(owner, { name: "Before Name", website: "https://before.example.org" })
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
        const seen = yield* call("GET", `${ORGANISATIONS}/${org.id}`, anonymous)
        includes(dataOf(seen.body), { name: "After Name", website: null, location: "Old Town" })
        assert.deepInclude(yield* eventsOf(tenant, "OrganisationUpdated"), {
          organisation_id: org.id,
          fields: ["name", "description", "website", "location"],
          updated_by: owner.id
        })

        yield* makeMembership(org, other, "admin")
        const byAdmin = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, otherHeaders, {
          contact_email: "new@example.org"
        })
        assert.strictEqual(byAdmin.status, 200, byAdmin.text)
        includes(dataOf(byAdmin.body), { contact_email: "new@example.org", role: "admin" })

        const coOwner = yield* makeUser(tenant)
        yield* makeMembership(org, coOwner, "owner")
        const byCoOwner = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, yield* authHeaders(coOwner), {
          location: null
        })
        includes(dataOf(byCoOwner.body), { location: null, role: "owner" })

        // A site super-admin manages any organisation; without a membership they answer as `admin`.
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
        const bySuper = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, superHeaders, { name: "Super Name" })
        assert.strictEqual(bySuper.status, 200, bySuper.text)
        includes(dataOf(bySuper.body), { name: "Super Name", role: "admin" })

        // An empty body changes nothing and still answers the organisation.
        const empty = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, ownerHeaders, {})
        assert.strictEqual(empty.status, 200, empty.text)
        includes(dataOf(empty.body), { name: "Super Name" })
      }))

    it.effect("a plain member, a `member`-role member, an inactive admin and a community admin are refused (403)", () =>
      Effect.gen(function*() {
        const { adminHeaders, other, otherHeaders, owner, tenant } = yield* community()
        const org = yield* makeOrganisation(owner, { name: "Guarded Org" })
        const memberRole = yield* makeUser(tenant)
        yield* makeMembership(org, memberRole, "member")
        const pendingAdmin = yield* makeUser(tenant)
        yield* makeMembership(org, pendingAdmin, "admin", "pending")
        for (
          const headers of [
            otherHeaders,
            yield* authHeaders(memberRole),
            yield* authHeaders(pendingAdmin),
            adminHeaders
          ]
        ) {
          const res = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, headers, { name: "Taken Over" })
          assert.strictEqual(res.status, 403, res.text)
          assert.strictEqual(codeOf(res.body), "FORBIDDEN")
        }
        assert.include(yield* organisationRow(org.id), { name: "Guarded Org" })
        const anonymous = yield* call("PUT", `${ORGANISATIONS}/${org.id}`, tenantHeaders(tenant), { name: "X Y Z" })
        assert.strictEqual(anonymous.status, 401)
        void other
      }))

    it.effect("another tenant's or an unknown organisation is 404; a suspended one is 403; pending is editable", () =>
      Effect.gen(function*() {
        const { owner, ownerHeaders } = yield* community()
        const stranger = yield* community()
        const foreign = yield* makeOrganisation(stranger.owner, { name: "Foreign Org" })
        for (const path of [`${ORGANISATIONS}/${foreign.id}`, `${ORGANISATIONS}/99999999`, `${ORGANISATIONS}/x`]) {
          const res = yield* call("PUT", path, ownerHeaders, { name: "Hijacked" })
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        assert.include(yield* organisationRow(foreign.id), { name: "Foreign Org" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended", name: "Frozen Org" })
        const refused = yield* call("PUT", `${ORGANISATIONS}/${suspended.id}`, ownerHeaders, { name: "Thawed Org" })
        assert.strictEqual(refused.status, 403, refused.text)
        assert.strictEqual(codeOf(refused.body), "FORBIDDEN")
        assert.include(yield* organisationRow(suspended.id), { name: "Frozen Org" })
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const edited = yield* call("PUT", `${ORGANISATIONS}/${pending.id}`, ownerHeaders, { location: "Harbour" })
        assert.strictEqual(edited.status, 200, edited.text)
        includes(dataOf(edited.body), { location: "Harbour", status: "pending" })
      }))

    it.effect("a taken name is 409 on field name; bad fields are 422 each", () =>
      Effect.gen(function*() {
        const { owner, ownerHeaders } = yield* community()
        yield* makeOrganisation(owner, { name: "First Org" })
        const second = yield* makeOrganisation(owner, { name: "Second Org" })
        const taken = yield* call("PUT", `${ORGANISATIONS}/${second.id}`, ownerHeaders, { name: "FIRST org" })
        assert.strictEqual(taken.status, 409, taken.text)
        assert.deepStrictEqual(errorsOf(taken.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        // Its own name in another case is fine.
        const recased = yield* call("PUT", `${ORGANISATIONS}/${second.id}`, ownerHeaders, { name: "SECOND ORG" })
        assert.strictEqual(recased.status, 200, recased.text)
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
        const { anonymous, owner, ownerHeaders } = yield* community({ features: { volunteering: false } })
        const org = yield* makeOrganisation(owner, { name: "Gated Org" })
        const routes: Array<readonly [Method, string, Headers, unknown?]> = [
          ["GET", ORGANISATIONS, anonymous],
          ["GET", `${ORGANISATIONS}/${org.id}`, anonymous],
          ["GET", MINE, ownerHeaders],
          ["POST", ORGANISATIONS, ownerHeaders, registration("Gated Newcomer")],
          ["PUT", `${ORGANISATIONS}/${org.id}`, ownerHeaders, { name: "Gated Rename" }]
        ]
        for (const [method, path, headers, body] of routes) {
          const res = yield* call(method, path, headers, body)
          assert.strictEqual(res.status, 403, `${method} ${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "FEATURE_DISABLED")
        }
        assert.include(yield* organisationRow(org.id), { name: "Gated Org" })
      }))

    it.effect("switching volunteering off through the admin config closes the directory at once", () =>
      Effect.gen(function*() {
        const { adminHeaders, owner, tenant } = yield* community()
        yield* makeOrganisation(owner)
        assert.strictEqual((yield* directoryIds(tenant)).length, 1)
        const off = yield* call("PUT", "/api/v2/admin/config/features", adminHeaders, {
          feature: "volunteering",
          enabled: false
        })
        assert.strictEqual(off.status, 200, off.text)
        const res = yield* call("GET", ORGANISATIONS, tenantHeaders(tenant))
        assert.strictEqual(res.status, 403, res.text)
        assert.strictEqual(codeOf(res.body), "FEATURE_DISABLED")
      }))
  })
})
