import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { AttributeId, CategoryId, ListingId, type Tenant, UserId } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus, failureOf } from "./fixtures/client.js"
import { actor, type Community, community, makeActor } from "./fixtures/community.js"
import { makeAttribute, makeCategory, makeListing } from "./fixtures/listings.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeSuperAdmin, makeUser } from "./fixtures/users.js"

const idsOf = (items: ReadonlyArray<{ readonly id: number }>) => items.map((x) => x.id)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ADMIN = "/api/v2/admin"
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>
/** A typed call of an admin route, for loops over routes. */
type Route = (client: ApiClient) => Effect.Effect<unknown, unknown>

/** A raw request, for bodies the contract refuses to send (untrimmed, wrong types) and for exact bodies. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const categoryPath = (id: number) => ({ path: { id: CategoryId.make(id) } })
const attributePath = (id: number) => ({ path: { id: AttributeId.make(id) } })
const listingPath = (id: number) => ({ path: { id: ListingId.make(id) } })

/** A super-admin of the platform signed in, addressing `tenant`. */
const superAdminIn = (tenant: { readonly id: number }) =>
  Effect.gen(function*() {
    const superAdmin = yield* actor(yield* makeSuperAdmin())
    return yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(tenant) })
  })

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
    (c) => c.adminCategories.list({ urlParams: {} }),
    (c) => c.adminCategories.create({ payload: { name: "Newly made" } }),
    (c) => c.adminAttributes.list(),
    (c) => c.adminAttributes.create({ payload: { name: "Newly made", type: "text" } }),
    (c) => c.adminListings.list({ urlParams: {} }),
    (c) => c.adminListings.moderationQueue({ urlParams: {} }),
    (c) => c.adminListings.moderationStats()
  ] as Array<Route>,
  byId: [
    (c) => c.adminCategories.update({ ...categoryPath(ids.category), payload: { name: "Renamed" } }),
    (c) => c.adminCategories.delete(categoryPath(ids.category)),
    (c) => c.adminAttributes.update({ ...attributePath(ids.attribute), payload: { name: "Renamed" } }),
    (c) => c.adminAttributes.delete(attributePath(ids.attribute)),
    (c) => c.adminListings.get(listingPath(ids.listing)),
    (c) => c.adminListings.approve(listingPath(ids.listing)),
    (c) => c.adminListings.delete(listingPath(ids.listing))
  ] as Array<Route>
})

/** A category, an attribute and a pending listing of the community. */
const records = (c: Community) =>
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
        for (const route of [...collection, ...byId]) {
          yield* route(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
          yield* route(c.member.client).pipe(expectError(403, "FORBIDDEN"))
        }
        for (const role of ["broker", "coordinator"] as const) {
          const staff = yield* makeActor(c.tenant, { role })
          for (const route of [...collection, ...byId]) {
            assert.strictEqual((yield* failureOf(route(staff.client))).status, 403, role)
          }
        }
        yield* assertUntouched(ids)
      }))

    it.effect("an admin of another community gets 404 on every {id} route (a super-admin addressing it too)", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const ids = yield* records(b)
        const superAdmin = yield* superAdminIn(a.tenant)
        for (const client of [a.admin.client, superAdmin]) {
          for (const route of adminRoutes(ids).byId) yield* route(client).pipe(expectError(404, "NOT_FOUND"))
        }
        yield* assertUntouched(ids)
        // Nor are B's records in A's lists.
        const client = a.admin.client
        assert.deepStrictEqual(idsOf((yield* client.adminListings.list({ urlParams: {} })).data), [])
        assert.deepStrictEqual(idsOf((yield* client.adminCategories.list({ urlParams: {} })).data), [])
        assert.deepStrictEqual(idsOf((yield* client.adminAttributes.list()).data), [])
        assert.deepStrictEqual(idsOf((yield* a.visitor.client.categories.list({ urlParams: {} })).data), [])
        // Ids the contract cannot express: raw.
        for (const path of ["categories/abc", "attributes/0", "listings/-1", "listings/1.5/approve"]) {
          const method: Method = path.startsWith("listings") ? (path.endsWith("approve") ? "POST" : "GET") : "DELETE"
          assert.strictEqual((yield* call(method, `${ADMIN}/${path}`, a.adminHeaders)).status, 404, path)
        }
      }))

    it.effect("a platform super-admin addressing a community administers it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const ids = yield* records(c)
        const client = yield* superAdminIn(c.tenant)
        yield* client.adminListings.approve({ ...listingPath(ids.listing), withResponse: true }).pipe(expectStatus(200))
        yield* client.adminCategories.create({ payload: { name: "From the platform" }, withResponse: true }).pipe(
          expectStatus(201)
        )
      }))
  })

  describe("categories", () => {
    it.effect("POST creates (201, D6 shape, default type listing, slug); public GET lists by name and type", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders: headers, tenant, visitor } = yield* community()
        // An untrimmed name, which the typed client refuses to send, and the exact body: raw.
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
        const client = admin.client
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

        const categories = visitor.client.categories
        const all = yield* categories.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(idsOf(all.data), [apples.data.id, event.data.id, garden.id])
        assert.deepStrictEqual(idsOf((yield* categories.list({ urlParams: { type: "event" } })).data), [event.data.id])
        assert.deepStrictEqual(idsOf((yield* categories.list({ urlParams: { type: "blog" } })).data), [])
        // A type the contract refuses to send: raw.
        const bad = yield* call("GET", "/api/v2/categories?type=poster", visitor.headers)
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(fieldsOf(bad.body), ["type"])
        const adminList = yield* client.adminCategories.list({ urlParams: { type: "listing" } })
        assert.deepStrictEqual(adminList.data.map((x) => x.id), [apples.data.id, garden.id])
      }))

    it.effect("a name is unique per type in any case (409 on name); slugs stay unique when names differ only in accents", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders: headers } = yield* community()
        const create = (payload: { readonly name: string; readonly type?: "blog" }) =>
          admin.client.adminCategories.create({ payload, withResponse: true })
        const first = yield* create({ name: "Café" }).pipe(expectStatus(201))
        assert.strictEqual(first.data.slug, "cafe")
        for (const name of ["café", "CAFÉ"]) {
          const dup = yield* create({ name }).pipe(expectError(409, "ALREADY_EXISTS"))
          assert.deepStrictEqual(dup.errors.map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        }
        // An untrimmed name, which the typed client refuses to send: raw.
        const untrimmed = yield* call("POST", `${ADMIN}/categories`, headers, { name: "  Café " })
        assert.strictEqual(untrimmed.status, 409, untrimmed.text)
        assert.deepStrictEqual(errorsOf(untrimmed.body).map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        const otherType = yield* create({ name: "Café", type: "blog" }).pipe(expectStatus(201))
        assert.strictEqual(otherType.data.slug, "cafe")
        assert.strictEqual((yield* create({ name: "Cafe" }).pipe(expectStatus(201))).data.slug, "cafe-2")
        assert.strictEqual((yield* create({ name: "CAFE!" }).pipe(expectStatus(201))).data.slug, "cafe-3")
        assert.strictEqual((yield* create({ name: "☕" }).pipe(expectStatus(201))).data.slug, "category")

        // Bodies the contract refuses to send: raw.
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
        const { admin, adminHeaders: headers } = yield* community()
        const client = admin.client
        for (
          const [name, color, stored] of [
            ["Blue", "blue", "blue"],
            ["Purple", "RebeccaPurple", "rebeccapurple"],
            ["Hex long", "#1E88E5", "#1e88e5"],
            ["Hex short", "#AbC", "#abc"]
          ] as const
        ) {
          const res = yield* client.adminCategories.create({ payload: { name, color }, withResponse: true }).pipe(
            expectStatus(201)
          )
          assert.strictEqual(res.data.color, stored)
        }
        // An untrimmed colour, which the typed client refuses to send: raw.
        const grey = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Grey", color: " LightSlateGrey " })
        assert.strictEqual(grey.status, 201, grey.text)
        assert.strictEqual(dataOf<{ color: string | null }>(grey.body).color, "lightslategrey")
        const created = yield* client.adminCategories.create({ payload: { name: "Recoloured" } })
        const id = created.data.id
        for (const [color, stored] of [["RebeccaPurple", "rebeccapurple"], ["#FFF", "#fff"], ["BLUE", "blue"]]) {
          const res = yield* client.adminCategories.update({ path: { id }, payload: { color }, withResponse: true })
            .pipe(expectStatus(200))
          assert.strictEqual(res.data.color, stored)
        }
        // Colours the contract refuses to send: raw.
        for (const color of ["notacolour", "blue2", "#ggg", "rgb(0,0,0)", "currentcolor"]) {
          const res = yield* call("PUT", `${ADMIN}/categories/${id}`, headers, { color })
          assert.strictEqual(res.status, 422, `${color}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "color"]])
        }
        const bad = yield* call("POST", `${ADMIN}/categories`, headers, { name: "Nope", color: "notacolour" })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(errorsOf(bad.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "color"]])
        const kept = yield* client.categories.list({ urlParams: {} })
        assert.strictEqual(kept.data.find((c) => c.id === id)!.color, "blue")
        // The typed client takes a name too.
        const typed = yield* client.adminCategories.create({ payload: { name: "Typed", color: "Tomato" } })
        assert.strictEqual(typed.data.color, "tomato")
      }))

    it.effect("PUT renames (new slug), recolours, refuses a taken name; a type other than listing unassigns listings", () =>
      Effect.gen(function*() {
        const { admin, member, tenant, visitor } = yield* community()
        const cat = yield* makeCategory(tenant, { name: "Tools" })
        yield* makeCategory(tenant, { name: "Books" })
        const listing = yield* makeListing(member, { categoryId: cat.id })
        const update = (payload: Parameters<typeof admin.client.adminCategories.update>[0]["payload"]) =>
          admin.client.adminCategories.update({ ...categoryPath(cat.id), payload, withResponse: true })
        const renamed = yield* update({ name: "Tools & Repairs", color: "#FF0000" }).pipe(expectStatus(200))
        assert.deepStrictEqual(renamed.data, {
          id: CategoryId.make(cat.id),
          name: "Tools & Repairs",
          slug: "tools-repairs",
          type: "listing",
          color: "#ff0000"
        })
        const shown = yield* visitor.client.listings.get(listingPath(listing.id))
        assert.deepStrictEqual(shown.data.category, { id: cat.id, name: "Tools & Repairs", slug: "tools-repairs" })
        const same = yield* update({ color: null }).pipe(expectStatus(200))
        includes(same.data, { slug: "tools-repairs", color: null })
        const taken = yield* failureOf(update({ name: "BOOKS" }))
        assert.strictEqual(taken.status, 409)
        assert.deepStrictEqual(taken.fields, ["name"])
        const empty = yield* update({}).pipe(expectStatus(200))
        assert.strictEqual(empty.data.name, "Tools & Repairs")

        yield* update({ type: "event" }).pipe(expectStatus(200))
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
        const { admin, member, tenant, visitor } = yield* community()
        const cat = yield* makeCategory(tenant)
        const kept = yield* makeCategory(tenant)
        const a = yield* makeListing(member, { categoryId: cat.id })
        const b = yield* makeListing(member, { categoryId: cat.id, status: "pending" })
        const c = yield* makeListing(member, { categoryId: kept.id })
        const client = admin.client
        const res = yield* client.adminCategories.delete({ ...categoryPath(cat.id), withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.deepStrictEqual(res, { data: { id: cat.id, deleted: true, unassigned_listings: 2 }, meta: {} })
        assert.strictEqual(yield* countOf("categories", cat.id), 0)
        for (const id of [a.id, b.id]) assert.include(yield* listingRow(id), { category_id: null, deleted_at: null })
        assert.include(yield* listingRow(c.id), { category_id: String(kept.id) })
        const shown = yield* visitor.client.listings.get(listingPath(a.id))
        includes(shown.data, { category_id: null, category: null })
        assert.sameMembers(
          (yield* eventsOf(tenant, "CategoryDeleted"))[0]!["unassigned_listing_ids"] as Array<number>,
          [a.id, b.id]
        )
        assert.strictEqual((yield* failureOf(client.adminCategories.delete(categoryPath(cat.id)))).status, 404)
        const back = yield* failureOf(
          client.adminCategories.update({ ...categoryPath(cat.id), payload: { name: "Back" } })
        )
        assert.strictEqual(back.status, 404)
      }))
  })

  describe("attributes", () => {
    it.effect("POST defines each type (201); public and admin GET list them by name", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders: headers, tenant, visitor } = yield* community()
        // Untrimmed options, which the typed client refuses to send, and the exact body: raw.
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
        const client = admin.client
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
        const listed = yield* visitor.client.attributes.list({ withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(idsOf(listed.data), [size.data.id, colour.id, pets.data.id])
        assert.deepStrictEqual(idsOf((yield* client.adminAttributes.list()).data), [
          size.data.id,
          colour.id,
          pets.data.id
        ])
      }))

    it.effect("bad definitions are 422 per field; a taken name (any case) is 409", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders: headers, tenant } = yield* community()
        const client = admin.client
        yield* makeAttribute(tenant, { name: "Colour" })
        const dup = yield* client.adminAttributes.create({ payload: { name: "COLOUR", type: "text" } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        assert.deepStrictEqual(dup.errors.map((e) => [e.code, e.field]), [["ALREADY_EXISTS", "name"]])
        // Definitions the contract takes and the community's rules refuse.
        for (
          const [payload, fields] of [
            [{ name: "Size", type: "select" }, ["options"]],
            [{ name: "Size", type: "select", options: [] }, ["options"]],
            [{ name: "Size", type: "select", options: ["S", "M", "S"] }, ["options.2"]],
            [{ name: "Size", type: "text", options: ["S"] }, ["options"]]
          ] as const
        ) {
          const res = yield* client.adminAttributes.create({ payload }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.sameMembers([...res.fields], [...fields], JSON.stringify(payload))
        }
        // Bodies the contract refuses to send: raw.
        for (
          const [body, fields] of [
            [{ name: "Size" }, ["type"]],
            [{ name: "Size", type: "date" }, ["type"]],
            [{ name: "", type: "text" }, ["name"]],
            [{ name: "Size", type: "select", options: ["S", ""] }, ["options.1"]],
            [{ name: "Size", type: "select", options: "S,M" }, ["options"]],
            [{ name: "Size", type: "text", required: "yes" }, ["required"]]
          ] as const
        ) {
          const res = yield* call("POST", `${ADMIN}/attributes`, headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        assert.strictEqual((yield* client.adminAttributes.list()).data.length, 1)
      }))

    it.effect("PUT: new options drop values no longer allowed, a new type drops all values; 409 on a taken name", () =>
      Effect.gen(function*() {
        const { admin, member, tenant } = yield* community()
        const update = (id: number, payload: Parameters<typeof admin.client.adminAttributes.update>[0]["payload"]) =>
          admin.client.adminAttributes.update({ ...attributePath(id), payload, withResponse: true })
        const colour = yield* makeAttribute(tenant, {
          name: "Colour",
          type: "select",
          options: ["red", "green", "blue"]
        })
        const note = yield* makeAttribute(tenant, { name: "Note", type: "text" })
        const red = yield* makeListing(member, { attributes: { [colour.key]: "red", [note.key]: "a" } })
        const blue = yield* makeListing(member, { attributes: { [colour.key]: "blue", [note.key]: "b" } })

        const res = yield* update(colour.id, { options: ["red", "green"], required: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(res.data, {
          id: AttributeId.make(colour.id),
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

        yield* update(note.id, { type: "number" }).pipe(expectStatus(200))
        assert.deepStrictEqual((yield* listingRow(red.id))["attributes"], { [colour.key]: "red" })
        assert.deepStrictEqual((yield* listingRow(blue.id))["attributes"], {})

        const taken = yield* failureOf(update(note.id, { name: "colour" }))
        assert.strictEqual(taken.status, 409)
        assert.deepStrictEqual(taken.fields, ["name"])
        const toSelect = yield* failureOf(update(note.id, { type: "select" }))
        assert.strictEqual(toSelect.status, 422)
        assert.deepStrictEqual(toSelect.fields, ["options"])
        const toText = yield* update(colour.id, { type: "text" }).pipe(expectStatus(200))
        includes(toText.data, { type: "text", options: [] })
        const unchanged = yield* update(colour.id, {}).pipe(expectStatus(200))
        includes(unchanged.data, { type: "text", name: "Colour" })
      }))

    it.effect("DELETE removes the definition and every listing's value of it", () =>
      Effect.gen(function*() {
        const { admin, member, tenant } = yield* community()
        const size = yield* makeAttribute(tenant, { type: "number", required: true })
        const note = yield* makeAttribute(tenant, { type: "text" })
        const listing = yield* makeListing(member, { attributes: { [size.key]: 3, [note.key]: "n" } })
        const client = admin.client
        const res = yield* client.adminAttributes.delete({ ...attributePath(size.id), withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.deepStrictEqual(res.data, { id: size.id, deleted: true })
        assert.deepStrictEqual((yield* listingRow(listing.id))["attributes"], { [note.key]: "n" })
        assert.strictEqual(yield* countOf("listing_attributes", size.id), 0)
        assert.deepInclude(yield* eventsOf(tenant, "AttributeDeleted"), {
          attribute_id: size.id,
          dropped_values: 1,
          deleted_by: admin.id
        })
        // No longer required, no longer accepted.
        const post = (attributes: Record<string, number>) =>
          Effect.flatMap(
            apiClient({ ...admin.headers, ...fromIp(randomIp()) }),
            (c) =>
              c.listings.create({
                payload: { type: "offer", title: "After", description: "x", attributes },
                withResponse: true
              })
          )
        yield* post({}).pipe(expectStatus(201))
        const stale = yield* failureOf(post({ [size.key]: 3 }))
        assert.strictEqual(stale.status, 422)
        assert.deepStrictEqual(stale.fields, [`attributes.${size.key}`])
        assert.strictEqual((yield* failureOf(client.adminAttributes.delete(attributePath(size.id)))).status, 404)
      }))
  })

  describe("listings", () => {
    it.effect("GET /listings: every status, newest first, offset meta, filters status, type, user, category, search", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders: headers, member, tenant } = yield* community()
        const cat = yield* makeCategory(tenant)
        const a = yield* makeListing(member, { title: "Bread baking", categoryId: cat.id })
        const b = yield* makeListing(admin, { type: "request", status: "pending", description: "Needs BREAD" })
        const c = yield* makeListing(member, { type: "request" })
        const gone = yield* makeListing(member)
        const client = admin.client
        yield* client.adminListings.delete(listingPath(gone.id))
        yield* makeListing(yield* makeUser(yield* makeTenant()))

        const all = yield* client.adminListings.list({ urlParams: {} })
        assert.deepStrictEqual(all.data.map((l) => l.id), [c.id, b.id, a.id])
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
        assert.deepInclude(all.data[1]!, { status: "pending", user_id: UserId.make(admin.id) })
        const page2 = yield* client.adminListings.list({ urlParams: { page: 2, per_page: 2 } })
        assert.deepStrictEqual(page2.data.map((l) => l.id), [a.id])
        assert.deepStrictEqual(page2.meta, { current_page: 2, per_page: 2, total: 3, total_pages: 2, has_more: false })

        const ids = (urlParams: Parameters<typeof client.adminListings.list>[0]["urlParams"]) =>
          Effect.map(
            client.adminListings.list({ urlParams, withResponse: true }).pipe(expectStatus(200)),
            (res) => idsOf(res.data)
          )
        assert.deepStrictEqual(yield* ids({ status: "pending" }), [b.id])
        assert.deepStrictEqual(yield* ids({ status: "active" }), [c.id, a.id])
        assert.deepStrictEqual(yield* ids({ type: "request" }), [c.id, b.id])
        assert.deepStrictEqual(yield* ids({ user_id: member.id }), [c.id, a.id])
        assert.deepStrictEqual(yield* ids({ category_id: cat.id }), [a.id])
        assert.deepStrictEqual(yield* ids({ search: "bread" }), [b.id, a.id])
        assert.deepStrictEqual(yield* ids({ search: "bread", status: "active", type: "offer" }), [a.id])
        // A query the contract refuses to send: raw.
        const bad = yield* call("GET", `${ADMIN}/listings?status=gone&page=0&per_page=101&user_id=x`, headers)
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(fieldsOf(bad.body), ["status", "page", "per_page", "user_id"])
      }))

    it.effect("moderation queue (pending, oldest first), stats, GET and approve (active; not pending → 422)", () =>
      Effect.gen(function*() {
        const { admin, member, tenant, visitor } = yield* community({ settings: { listing_moderation: true } })
        const client = admin.client
        const emptyStats = yield* client.adminListings.moderationStats()
        assert.deepStrictEqual(emptyStats, {
          data: { pending: 0, active: 0, total: 0, oldest_pending_at: null },
          meta: {}
        })
        const p1 = yield* makeListing(member, { status: "pending" })
        const active = yield* makeListing(member)
        const p2 = yield* makeListing(admin, { status: "pending" })
        const p3 = yield* makeListing(member, { status: "pending" })

        const queue = yield* client.adminListings.moderationQueue({ urlParams: {}, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.deepStrictEqual(idsOf(queue.data), [p1.id, p2.id, p3.id])
        assert.deepStrictEqual(queue.meta, {
          current_page: 1,
          per_page: 20,
          total: 3,
          total_pages: 1,
          has_more: false
        })
        const second = yield* client.adminListings.moderationQueue({ urlParams: { page: 2, per_page: 2 } })
        assert.deepStrictEqual(idsOf(second.data), [p3.id])
        const stats = (yield* client.adminListings.moderationStats()).data
        assert.include(stats, { pending: 3, active: 1, total: 4 })
        const p1Created = (yield* listingRow(p1.id))["created_at"] as Date
        assert.strictEqual(DateTime.toEpochMillis(stats.oldest_pending_at!), p1Created.getTime())

        const got = yield* client.adminListings.get({ ...listingPath(p2.id), withResponse: true }).pipe(
          expectStatus(200)
        )
        includes(got.data, { id: p2.id, status: "pending", user_id: admin.id })

        const approved = yield* client.adminListings.approve({ ...listingPath(p1.id), withResponse: true }).pipe(
          expectStatus(200)
        )
        includes(approved.data, { id: p1.id, status: "active", user_id: member.id })
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
        assert.deepStrictEqual(idsOf((yield* visitor.client.listings.list({ urlParams: {} })).data), [
          active.id,
          p1.id
        ])
        assert.deepStrictEqual(idsOf((yield* client.adminListings.moderationQueue({ urlParams: {} })).data), [
          p2.id,
          p3.id
        ])
        includes((yield* client.adminListings.moderationStats()).data, { pending: 2, active: 2, total: 4 })

        for (const id of [p1.id, active.id]) {
          yield* client.adminListings.approve(listingPath(id)).pipe(expectError(422, "LISTING_NOT_PENDING"))
        }
        assert.strictEqual((yield* eventsOf(tenant, "ListingUpdated")).length, 1)
      }))

    it.effect("DELETE removes a listing of any status (the way to reject); then it is 404 everywhere", () =>
      Effect.gen(function*() {
        const { admin, member, tenant } = yield* community()
        const pending = yield* makeListing(member, { status: "pending" })
        const client = admin.client
        const path = listingPath(pending.id)
        const res = yield* client.adminListings.delete({ ...path, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(res, { data: { id: pending.id, deleted: true }, meta: {} })
        assert.notStrictEqual((yield* listingRow(pending.id))["deleted_at"], null)
        assert.deepInclude(yield* eventsOf(tenant, "ListingDeleted"), {
          listing_id: pending.id,
          user_id: member.id,
          type: "offer",
          status: "pending",
          deleted_by: admin.id
        })
        const gone: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          client.adminListings.get(path),
          client.adminListings.delete(path),
          client.adminListings.approve(path)
        ]
        for (const attempt of gone) assert.strictEqual((yield* failureOf(attempt)).status, 404)
        assert.strictEqual((yield* failureOf(member.client.listings.get(path))).status, 404)
        assert.deepStrictEqual(idsOf((yield* client.adminListings.moderationQueue({ urlParams: {} })).data), [])
      }))

    it.effect("admin listing routes stay available when the listings feature is off", () =>
      Effect.gen(function*() {
        const { admin, member } = yield* community({ features: { listings: false } })
        const pending = yield* makeListing(member, { status: "pending" })
        yield* admin.client.adminListings.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
        yield* admin.client.adminListings.approve({ ...listingPath(pending.id), withResponse: true }).pipe(
          expectStatus(200)
        )
      }))
  })
})
