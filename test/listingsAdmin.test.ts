import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import { community as baseCommunity } from "./fixtures/community.js"
import { makeAttribute, makeCategory, makeListing } from "./fixtures/listings.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((x) => x.id)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ADMIN = "/api/v2/admin"
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>
type Route = readonly [Method, string, unknown?]

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

/** The shared community, its admin's headers also as `headers`. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.map(baseCommunity(overrides), (c) => ({ ...c, headers: c.adminHeaders }))

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const listingRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Record<string, unknown>>`SELECT * FROM listings WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]!))
  )

const countOf = (table: "categories" | "listing_attributes", id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE id = ${id}`.pipe(
        Effect.map((rows) => rows[0]!.n)
      )
  )

/** Every admin route of this file; those with an id aim at the given records. */
const adminRoutes = (ids: { category: number; attribute: number; listing: number }) => ({
  collection: [
    ["GET", `${ADMIN}/categories`],
    ["POST", `${ADMIN}/categories`, { name: "Newly made" }],
    ["GET", `${ADMIN}/attributes`],
    ["POST", `${ADMIN}/attributes`, { name: "Newly made", type: "text" }],
    ["GET", `${ADMIN}/listings`],
    ["GET", `${ADMIN}/listings/moderation-queue`],
    ["GET", `${ADMIN}/listings/moderation-stats`]
  ] as Array<Route>,
  byId: [
    ["PUT", `${ADMIN}/categories/${ids.category}`, { name: "Renamed" }],
    ["DELETE", `${ADMIN}/categories/${ids.category}`],
    ["PUT", `${ADMIN}/attributes/${ids.attribute}`, { name: "Renamed" }],
    ["DELETE", `${ADMIN}/attributes/${ids.attribute}`],
    ["GET", `${ADMIN}/listings/${ids.listing}`],
    ["POST", `${ADMIN}/listings/${ids.listing}/approve`],
    ["DELETE", `${ADMIN}/listings/${ids.listing}`]
  ] as Array<Route>
})

/** A category, an attribute and a pending listing of the community. */
const records = (c: Effect.Effect.Success<ReturnType<typeof community>>) =>
  Effect.gen(function*() {
    const category = yield* makeCategory(c.tenant, { name: "Keep Me" })
    const attribute = yield* makeAttribute(c.tenant, { name: "Keep Me Too" })
    const listing = yield* makeListing(c.member, { status: "pending", categoryId: category.id })
    return { category: category.id, attribute: attribute.id, listing: listing.id }
  })

const assertUntouched = (ids: { category: number; attribute: number; listing: number }) =>
  Effect.gen(function*() {
    assert.strictEqual(yield* countOf("categories", ids.category), 1)
    assert.strictEqual(yield* countOf("listing_attributes", ids.attribute), 1)
    const row = yield* listingRow(ids.listing)
    assert.include(row, { status: "pending", deleted_at: null, category_id: String(ids.category) })
  })

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("listing administration", (it) => {
  describe("access", () => {
    it.effect("without a token every admin route is 401; members get 403 and nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const ids = yield* records(c)
        const { byId, collection } = adminRoutes(ids)
        for (const [method, path, body] of [...collection, ...byId]) {
          const anon = yield* call(method, path, c.anonymous, body)
          assert.strictEqual(anon.status, 401, `${method} ${path}`)
          assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
          const member = yield* call(method, path, c.memberHeaders, body)
          assert.strictEqual(member.status, 403, `${method} ${path}: ${member.text}`)
          assert.strictEqual(codeOf(member.body), "FORBIDDEN")
        }
        for (const role of ["broker", "coordinator"] as const) {
          const staff = yield* authHeaders(yield* makeUser(c.tenant, { role }))
          for (const [method, path, body] of [...collection, ...byId]) {
            assert.strictEqual((yield* call(method, path, staff, body)).status, 403, `${role} ${method} ${path}`)
          }
        }
        yield* assertUntouched(ids)
      }))

    it.effect("an admin of another community gets 404 on every {id} route (a super-admin addressing it too)", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const ids = yield* records(b)
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), a.tenant)
        for (const headers of [a.headers, superHeaders]) {
          for (const [method, path, body] of adminRoutes(ids).byId) {
            const res = yield* call(method, path, headers, body)
            assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
        }
        yield* assertUntouched(ids)
        // Nor are B's records in A's lists.
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/listings`, a.headers)).body), [])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/categories`, a.headers)).body), [])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/attributes`, a.headers)).body), [])
        assert.deepStrictEqual(idsOf((yield* call("GET", "/api/v2/categories", a.anonymous)).body), [])
        for (const path of ["categories/abc", "attributes/0", "listings/-1", "listings/1.5/approve"]) {
          const method: Method = path.startsWith("listings") ? (path.endsWith("approve") ? "POST" : "GET") : "DELETE"
          assert.strictEqual((yield* call(method, `${ADMIN}/${path}`, a.headers)).status, 404, path)
        }
      }))

    it.effect("a platform super-admin addressing a community administers it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const ids = yield* records(c)
        const headers = yield* authHeaders(yield* makeSuperAdmin(), c.tenant)
        const approved = yield* call("POST", `${ADMIN}/listings/${ids.listing}/approve`, headers)
        assert.strictEqual(approved.status, 200, approved.text)
        const created = yield* call("POST", `${ADMIN}/categories`, headers, { name: "From the platform" })
        assert.strictEqual(created.status, 201, created.text)
      }))
  })

  describe("categories", () => {
    it.effect("POST creates (201, D6 shape, default type listing, slug); public GET lists by name and type", () =>
      Effect.gen(function*() {
        const { admin, anonymous, headers, tenant } = yield* community()
        const res = yield* call("POST", `${ADMIN}/categories`, headers, { name: "  Garden & Home ", color: "#1E88E5" })
        assert.strictEqual(res.status, 201, res.text)
        const garden = dataOf<{ id: number }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: { id: garden.id, name: "Garden & Home", slug: "garden-home", type: "listing", color: "#1e88e5" },
          meta: {}
        })
        assert.deepInclude(yield* eventsOf(tenant, "CategoryCreated"), {
          category_id: garden.id,
          type: "listing",
          name: "Garden & Home",
          slug: "garden-home",
          created_by: admin.id
        })
        const client = yield* apiClient(headers)
        const event = yield* client.adminCategories.create({ payload: { name: "Bike rides", type: "event" } })
        assert.deepStrictEqual(event.data, {
          id: event.data.id,
          name: "Bike rides",
          slug: "bike-rides",
          type: "event",
          color: null
        })
        const apples = yield* client.adminCategories.create({ payload: { name: "apples", color: "#abc" } })
        assert.strictEqual(apples.data.color, "#abc")

        const all = yield* call("GET", "/api/v2/categories", anonymous)
        assert.strictEqual(all.status, 200, all.text)
        assert.deepStrictEqual(idsOf(all.body), [apples.data.id, event.data.id, garden.id])
        assert.deepStrictEqual(idsOf((yield* call("GET", "/api/v2/categories?type=event", anonymous)).body), [
          event.data.id
        ])
        assert.deepStrictEqual(idsOf((yield* call("GET", "/api/v2/categories?type=blog", anonymous)).body), [])
        const bad = yield* call("GET", "/api/v2/categories?type=poster", anonymous)
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(fieldsOf(bad.body), ["type"])
        const adminList = yield* client.adminCategories.list({ urlParams: { type: "listing" } })
        assert.deepStrictEqual(adminList.data.map((x) => x.id), [apples.data.id, garden.id])
      }))

    it.effect("a name is unique per type in any case (409 on name); slugs stay unique when names differ only in accents", () =>
      Effect.gen(function*() {
        const { headers } = yield* community()
        const first = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Café" })
        assert.strictEqual(dataOf<{ slug: string }>(first.body).slug, "cafe")
        for (const name of ["café", "CAFÉ", "  Café "]) {
          const dup = yield* call("POST", `${ADMIN}/categories`, headers, { name })
          assert.strictEqual(dup.status, 409, `${name}: ${dup.text}`)
          assert.deepStrictEqual(errorsOf(dup.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        }
        const otherType = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Café", type: "blog" })
        assert.strictEqual(otherType.status, 201)
        assert.strictEqual(dataOf<{ slug: string }>(otherType.body).slug, "cafe")
        const second = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Cafe" })
        assert.strictEqual(dataOf<{ slug: string }>(second.body).slug, "cafe-2")
        const third = yield* call("POST", `${ADMIN}/categories`, headers, { name: "CAFE!" })
        assert.strictEqual(dataOf<{ slug: string }>(third.body).slug, "cafe-3")
        const symbols = yield* call("POST", `${ADMIN}/categories`, headers, { name: "☕" })
        assert.strictEqual(dataOf<{ slug: string }>(symbols.body).slug, "category")

        for (
          const [body, fields] of [
            [{}, ["name"]],
            [{ name: "  " }, ["name"]],
            [{ name: "x".repeat(101) }, ["name"]],
            [{ name: "Ok", type: "poster" }, ["type"]],
            [{ name: "Ok", color: "notacolour" }, ["color"]],
            [{ name: "Ok", color: "transparent" }, ["color"]],
            [{ name: "Ok", color: "#abcd" }, ["color"]],
            [{ name: "Ok", color: "" }, ["color"]],
            [{ name: 5, color: "#12345" }, ["name", "color"]]
          ] as const
        ) {
          const res = yield* call("POST", `${ADMIN}/categories`, headers, body)
          assert.strictEqual(res.status, 422, JSON.stringify(body))
          assert.sameMembers(fieldsOf(res.body), [...fields])
        }
      }))

    it.effect("color: hex (#rgb, #rrggbb) or a CSS named colour in any case, stored lowercase; others 422", () =>
      Effect.gen(function*() {
        const { headers } = yield* community()
        const colourOf = (body: unknown) => dataOf<{ color: string | null }>(body).color
        for (
          const [name, color, stored] of [
            ["Blue", "blue", "blue"],
            ["Purple", "RebeccaPurple", "rebeccapurple"],
            ["Grey", " LightSlateGrey ", "lightslategrey"],
            ["Hex long", "#1E88E5", "#1e88e5"],
            ["Hex short", "#AbC", "#abc"]
          ] as const
        ) {
          const res = yield* call("POST", `${ADMIN}/categories`, headers, { name, color })
          assert.strictEqual(res.status, 201, `${color}: ${res.text}`)
          assert.strictEqual(colourOf(res.body), stored)
        }
        const created = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Recoloured" })
        const id = dataOf<{ id: number }>(created.body).id
        for (const [color, stored] of [["RebeccaPurple", "rebeccapurple"], ["#FFF", "#fff"], ["BLUE", "blue"]]) {
          const res = yield* call("PUT", `${ADMIN}/categories/${id}`, headers, { color })
          assert.strictEqual(res.status, 200, `${color}: ${res.text}`)
          assert.strictEqual(colourOf(res.body), stored)
        }
        for (const color of ["notacolour", "blue2", "#ggg", "rgb(0,0,0)", "currentcolor"]) {
          const res = yield* call("PUT", `${ADMIN}/categories/${id}`, headers, { color })
          assert.strictEqual(res.status, 422, `${color}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "color"]])
        }
        const bad = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Nope", color: "notacolour" })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(errorsOf(bad.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "color"]])
        const kept = yield* call("GET", "/api/v2/categories", headers)
        assert.strictEqual(
          dataOf<Array<{ id: number; color: string | null }>>(kept.body).find((c) => c.id === id)!.color,
          "blue"
        )
        // The typed client takes a name too.
        const client = yield* apiClient(headers)
        const typed = yield* client.adminCategories.create({ payload: { name: "Typed", color: "Tomato" } })
        assert.strictEqual(typed.data.color, "tomato")
      }))

    it.effect("PUT renames (new slug), recolours, refuses a taken name; a type other than listing unassigns listings", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const cat = yield* makeCategory(tenant, { name: "Tools" })
        yield* makeCategory(tenant, { name: "Books" })
        const listing = yield* makeListing(member, { categoryId: cat.id })
        const renamed = yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, {
          name: "Tools & Repairs",
          color: "#FF0000"
        })
        assert.strictEqual(renamed.status, 200, renamed.text)
        assert.deepStrictEqual(dataOf(renamed.body), {
          id: cat.id,
          name: "Tools & Repairs",
          slug: "tools-repairs",
          type: "listing",
          color: "#ff0000"
        })
        const shown = yield* call("GET", `/api/v2/listings/${listing.id}`, tenantHeaders(tenant))
        assert.deepStrictEqual(dataOf<{ category: unknown }>(shown.body).category, {
          id: cat.id,
          name: "Tools & Repairs",
          slug: "tools-repairs"
        })
        const same = yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, { color: null })
        includes(dataOf(same.body), { slug: "tools-repairs", color: null })
        const taken = yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, { name: "BOOKS" })
        assert.strictEqual(taken.status, 409)
        assert.deepStrictEqual(fieldsOf(taken.body), ["name"])
        const empty = yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, {})
        assert.strictEqual(dataOf<{ name: string }>(empty.body).name, "Tools & Repairs")

        const retyped = yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, { type: "event" })
        assert.strictEqual(retyped.status, 200, retyped.text)
        assert.include(yield* listingRow(listing.id), { category_id: null })
        assert.deepInclude(yield* eventsOf(tenant, "CategoryUpdated"), {
          category_id: cat.id,
          fields: ["type"],
          type: "event",
          unassigned_listing_ids: [listing.id],
          updated_by: admin.id
        })
      }))

    it.effect("DELETE removes the category; its listings stay, without a category", () =>
      Effect.gen(function*() {
        const { anonymous, headers, member, tenant } = yield* community()
        const cat = yield* makeCategory(tenant)
        const kept = yield* makeCategory(tenant)
        const a = yield* makeListing(member, { categoryId: cat.id })
        const b = yield* makeListing(member, { categoryId: cat.id, status: "pending" })
        const c = yield* makeListing(member, { categoryId: kept.id })
        const res = yield* call("DELETE", `${ADMIN}/categories/${cat.id}`, headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, { data: { id: cat.id, deleted: true, unassigned_listings: 2 }, meta: {} })
        assert.strictEqual(yield* countOf("categories", cat.id), 0)
        for (const id of [a.id, b.id]) assert.include(yield* listingRow(id), { category_id: null, deleted_at: null })
        assert.include(yield* listingRow(c.id), { category_id: String(kept.id) })
        const shown = yield* call("GET", `/api/v2/listings/${a.id}`, anonymous)
        includes(dataOf(shown.body), { category_id: null, category: null })
        assert.sameMembers(
          (yield* eventsOf(tenant, "CategoryDeleted"))[0]!["unassigned_listing_ids"] as Array<number>,
          [a.id, b.id]
        )
        assert.strictEqual((yield* call("DELETE", `${ADMIN}/categories/${cat.id}`, headers)).status, 404)
        assert.strictEqual((yield* call("PUT", `${ADMIN}/categories/${cat.id}`, headers, { name: "Back" })).status, 404)
      }))
  })

  describe("attributes", () => {
    it.effect("POST defines each type (201); public and admin GET list them by name", () =>
      Effect.gen(function*() {
        const { admin, anonymous, headers, tenant } = yield* community()
        const res = yield* call("POST", `${ADMIN}/attributes`, headers, {
          name: "Colour",
          type: "select",
          options: [" red ", "green"],
          required: true
        })
        assert.strictEqual(res.status, 201, res.text)
        const colour = dataOf<{ id: number }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: { id: colour.id, name: "Colour", type: "select", options: ["red", "green"], required: true },
          meta: {}
        })
        const client = yield* apiClient(headers)
        const size = yield* client.adminAttributes.create({ payload: { name: "Bike size", type: "number" } })
        assert.deepStrictEqual(size.data, {
          id: size.data.id,
          name: "Bike size",
          type: "number",
          options: [],
          required: false
        })
        const pets = yield* client.adminAttributes.create({
          payload: { name: "Pets ok", type: "boolean", options: [] }
        })
        assert.deepInclude(yield* eventsOf(tenant, "AttributeCreated"), {
          attribute_id: colour.id,
          name: "Colour",
          created_by: admin.id
        })
        const listed = yield* call("GET", "/api/v2/attributes", anonymous)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(idsOf(listed.body), [size.data.id, colour.id, pets.data.id])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/attributes`, headers)).body), [
          size.data.id,
          colour.id,
          pets.data.id
        ])
      }))

    it.effect("bad definitions are 422 per field; a taken name (any case) is 409", () =>
      Effect.gen(function*() {
        const { headers, tenant } = yield* community()
        yield* makeAttribute(tenant, { name: "Colour" })
        const dup = yield* call("POST", `${ADMIN}/attributes`, headers, { name: "COLOUR", type: "text" })
        assert.strictEqual(dup.status, 409)
        assert.deepStrictEqual(errorsOf(dup.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        for (
          const [body, fields] of [
            [{ name: "Size" }, ["type"]],
            [{ name: "Size", type: "date" }, ["type"]],
            [{ name: "", type: "text" }, ["name"]],
            [{ name: "Size", type: "select" }, ["options"]],
            [{ name: "Size", type: "select", options: [] }, ["options"]],
            [{ name: "Size", type: "select", options: ["S", "M", "S"] }, ["options.2"]],
            [{ name: "Size", type: "select", options: ["S", ""] }, ["options.1"]],
            [{ name: "Size", type: "select", options: "S,M" }, ["options"]],
            [{ name: "Size", type: "text", options: ["S"] }, ["options"]],
            [{ name: "Size", type: "text", required: "yes" }, ["required"]]
          ] as const
        ) {
          const res = yield* call("POST", `${ADMIN}/attributes`, headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        assert.strictEqual(idsOf((yield* call("GET", `${ADMIN}/attributes`, headers)).body).length, 1)
      }))

    it.effect("PUT: new options drop values no longer allowed, a new type drops all values; 409 on a taken name", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const colour = yield* makeAttribute(tenant, {
          name: "Colour",
          type: "select",
          options: ["red", "green", "blue"]
        })
        const note = yield* makeAttribute(tenant, { name: "Note", type: "text" })
        const red = yield* makeListing(member, { attributes: { [colour.key]: "red", [note.key]: "a" } })
        const blue = yield* makeListing(member, { attributes: { [colour.key]: "blue", [note.key]: "b" } })

        const res = yield* call("PUT", `${ADMIN}/attributes/${colour.id}`, headers, {
          options: ["red", "green"],
          required: true
        })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(dataOf(res.body), {
          id: colour.id,
          name: "Colour",
          type: "select",
          options: ["red", "green"],
          required: true
        })
        assert.deepStrictEqual((yield* listingRow(red.id))["attributes"], { [colour.key]: "red", [note.key]: "a" })
        assert.deepStrictEqual((yield* listingRow(blue.id))["attributes"], { [note.key]: "b" })
        assert.deepInclude(yield* eventsOf(tenant, "AttributeUpdated"), {
          attribute_id: colour.id,
          fields: ["options", "required"],
          dropped_values: 1,
          updated_by: admin.id
        })

        const retyped = yield* call("PUT", `${ADMIN}/attributes/${note.id}`, headers, { type: "number" })
        assert.strictEqual(retyped.status, 200, retyped.text)
        assert.deepStrictEqual((yield* listingRow(red.id))["attributes"], { [colour.key]: "red" })
        assert.deepStrictEqual((yield* listingRow(blue.id))["attributes"], {})

        const taken = yield* call("PUT", `${ADMIN}/attributes/${note.id}`, headers, { name: "colour" })
        assert.strictEqual(taken.status, 409)
        assert.deepStrictEqual(fieldsOf(taken.body), ["name"])
        const toSelect = yield* call("PUT", `${ADMIN}/attributes/${note.id}`, headers, { type: "select" })
        assert.strictEqual(toSelect.status, 422)
        assert.deepStrictEqual(fieldsOf(toSelect.body), ["options"])
        const toText = yield* call("PUT", `${ADMIN}/attributes/${colour.id}`, headers, { type: "text" })
        includes(dataOf(toText.body), { type: "text", options: [] })
        const unchanged = yield* call("PUT", `${ADMIN}/attributes/${colour.id}`, headers, {})
        includes(dataOf(unchanged.body), { type: "text", name: "Colour" })
      }))

    it.effect("DELETE removes the definition and every listing's value of it", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const size = yield* makeAttribute(tenant, { type: "number", required: true })
        const note = yield* makeAttribute(tenant, { type: "text" })
        const listing = yield* makeListing(member, { attributes: { [size.key]: 3, [note.key]: "n" } })
        const res = yield* call("DELETE", `${ADMIN}/attributes/${size.id}`, headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(dataOf(res.body), { id: size.id, deleted: true })
        assert.deepStrictEqual((yield* listingRow(listing.id))["attributes"], { [note.key]: "n" })
        assert.strictEqual(yield* countOf("listing_attributes", size.id), 0)
        assert.deepInclude(yield* eventsOf(tenant, "AttributeDeleted"), {
          attribute_id: size.id,
          dropped_values: 1,
          deleted_by: admin.id
        })
        // No longer required, no longer accepted.
        const post = (attributes: Record<string, unknown>) =>
          call("POST", "/api/v2/listings", { ...headers, ...fromIp(randomIp()) }, {
            type: "offer",
            title: "After",
            description: "x",
            attributes
          })
        assert.strictEqual((yield* post({})).status, 201)
        const stale = yield* post({ [size.key]: 3 })
        assert.strictEqual(stale.status, 422)
        assert.deepStrictEqual(fieldsOf(stale.body), [`attributes.${size.key}`])
        assert.strictEqual((yield* call("DELETE", `${ADMIN}/attributes/${size.id}`, headers)).status, 404)
      }))
  })

  describe("listings", () => {
    it.effect("GET /listings: every status, newest first, offset meta, filters status, type, user, category, search", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const cat = yield* makeCategory(tenant)
        const a = yield* makeListing(member, { title: "Bread baking", categoryId: cat.id })
        const b = yield* makeListing(admin, { type: "request", status: "pending", description: "Needs BREAD" })
        const c = yield* makeListing(member, { type: "request" })
        const gone = yield* makeListing(member)
        yield* call("DELETE", `${ADMIN}/listings/${gone.id}`, headers)
        yield* makeListing(yield* makeUser(yield* makeTenant()))

        const client = yield* apiClient(headers)
        const all = yield* client.adminListings.list({ urlParams: {} })
        assert.deepStrictEqual(all.data.map((l) => l.id), [c.id, b.id, a.id])
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
        assert.deepInclude(all.data[1]!, { status: "pending", user_id: admin.id })
        const page2 = yield* client.adminListings.list({ urlParams: { page: 2, per_page: 2 } })
        assert.deepStrictEqual(page2.data.map((l) => l.id), [a.id])
        assert.deepStrictEqual(page2.meta, { current_page: 2, per_page: 2, total: 3, total_pages: 2, has_more: false })

        const ids = (query: string) =>
          Effect.map(call("GET", `${ADMIN}/listings?${query}`, headers), (res) => {
            assert.strictEqual(res.status, 200, `${query}: ${res.text}`)
            return idsOf(res.body)
          })
        assert.deepStrictEqual(yield* ids("status=pending"), [b.id])
        assert.deepStrictEqual(yield* ids("status=active"), [c.id, a.id])
        assert.deepStrictEqual(yield* ids("type=request"), [c.id, b.id])
        assert.deepStrictEqual(yield* ids(`user_id=${member.id}`), [c.id, a.id])
        assert.deepStrictEqual(yield* ids(`category_id=${cat.id}`), [a.id])
        assert.deepStrictEqual(yield* ids("search=bread"), [b.id, a.id])
        assert.deepStrictEqual(yield* ids("search=bread&status=active&type=offer"), [a.id])
        const bad = yield* call("GET", `${ADMIN}/listings?status=gone&page=0&per_page=101&user_id=x`, headers)
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(fieldsOf(bad.body), ["status", "page", "per_page", "user_id"])
      }))

    it.effect("moderation queue (pending, oldest first), stats, GET and approve (active; not pending → 422)", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community({ settings: { listing_moderation: true } })
        const emptyStats = yield* call("GET", `${ADMIN}/listings/moderation-stats`, headers)
        assert.deepStrictEqual(emptyStats.body, {
          data: { pending: 0, active: 0, total: 0, oldest_pending_at: null },
          meta: {}
        })
        const p1 = yield* makeListing(member, { status: "pending" })
        const active = yield* makeListing(member)
        const p2 = yield* makeListing(admin, { status: "pending" })
        const p3 = yield* makeListing(member, { status: "pending" })

        const queue = yield* call("GET", `${ADMIN}/listings/moderation-queue`, headers)
        assert.strictEqual(queue.status, 200, queue.text)
        assert.deepStrictEqual(idsOf(queue.body), [p1.id, p2.id, p3.id])
        assert.deepStrictEqual((queue.body as { meta: unknown }).meta, {
          current_page: 1,
          per_page: 20,
          total: 3,
          total_pages: 1,
          has_more: false
        })
        const second = yield* call("GET", `${ADMIN}/listings/moderation-queue?page=2&per_page=2`, headers)
        assert.deepStrictEqual(idsOf(second.body), [p3.id])
        const stats = dataOf<{ pending: number; active: number; total: number; oldest_pending_at: string }>(
          (yield* call("GET", `${ADMIN}/listings/moderation-stats`, headers)).body
        )
        assert.include(stats, { pending: 3, active: 1, total: 4 })
        const p1Created = (yield* listingRow(p1.id))["created_at"] as Date
        assert.strictEqual(new Date(stats.oldest_pending_at).getTime(), p1Created.getTime())

        const got = yield* call("GET", `${ADMIN}/listings/${p2.id}`, headers)
        assert.strictEqual(got.status, 200, got.text)
        includes(dataOf(got.body), { id: p2.id, status: "pending", user_id: admin.id })

        const approved = yield* call("POST", `${ADMIN}/listings/${p1.id}/approve`, headers)
        assert.strictEqual(approved.status, 200, approved.text)
        includes(dataOf(approved.body), { id: p1.id, status: "active", user_id: member.id })
        assert.include(yield* listingRow(p1.id), { status: "active" })
        assert.deepInclude(yield* eventsOf(tenant, "ListingUpdated"), {
          listing_id: p1.id,
          user_id: member.id,
          fields: ["status"],
          previous_status: "pending",
          status: "active",
          updated_by: admin.id
        })
        // Public order is creation order: an approved listing takes its place among those created after it.
        assert.deepStrictEqual(idsOf((yield* call("GET", "/api/v2/listings", tenantHeaders(tenant))).body), [
          active.id,
          p1.id
        ])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/listings/moderation-queue`, headers)).body), [
          p2.id,
          p3.id
        ])
        includes(dataOf((yield* call("GET", `${ADMIN}/listings/moderation-stats`, headers)).body), {
          pending: 2,
          active: 2,
          total: 4
        })

        for (const id of [p1.id, active.id]) {
          const again = yield* call("POST", `${ADMIN}/listings/${id}/approve`, headers)
          assert.strictEqual(again.status, 422, again.text)
          assert.strictEqual(codeOf(again.body), "LISTING_NOT_PENDING")
        }
        assert.strictEqual((yield* eventsOf(tenant, "ListingUpdated")).length, 1)
      }))

    it.effect("DELETE removes a listing of any status (the way to reject); then it is 404 everywhere", () =>
      Effect.gen(function*() {
        const { admin, headers, member, memberHeaders, tenant } = yield* community()
        const pending = yield* makeListing(member, { status: "pending" })
        const res = yield* call("DELETE", `${ADMIN}/listings/${pending.id}`, headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, { data: { id: pending.id, deleted: true }, meta: {} })
        assert.notStrictEqual((yield* listingRow(pending.id))["deleted_at"], null)
        assert.deepInclude(yield* eventsOf(tenant, "ListingDeleted"), {
          listing_id: pending.id,
          user_id: member.id,
          type: "offer",
          status: "pending",
          deleted_by: admin.id
        })
        for (
          const [method, path] of [
            ["GET", `${ADMIN}/listings/${pending.id}`],
            ["DELETE", `${ADMIN}/listings/${pending.id}`],
            ["POST", `${ADMIN}/listings/${pending.id}/approve`]
          ] as const
        ) {
          assert.strictEqual((yield* call(method, path, headers)).status, 404, `${method} ${path}`)
        }
        assert.strictEqual((yield* call("GET", `/api/v2/listings/${pending.id}`, memberHeaders)).status, 404)
        assert.deepStrictEqual(idsOf((yield* call("GET", `${ADMIN}/listings/moderation-queue`, headers)).body), [])
      }))

    it.effect("admin listing routes stay available when the listings feature is off", () =>
      Effect.gen(function*() {
        const { headers, member } = yield* community({ features: { listings: false } })
        const pending = yield* makeListing(member, { status: "pending" })
        assert.strictEqual((yield* call("GET", `${ADMIN}/listings`, headers)).status, 200)
        assert.strictEqual((yield* call("POST", `${ADMIN}/listings/${pending.id}/approve`, headers)).status, 200)
      }))
  })
})
