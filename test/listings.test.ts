import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant, ListingId, type ListListingsParams, RecordId, type Tenant } from "@timebank/domain"
import { ListingsService } from "@timebank/server"
import { Effect } from "effect"
import pg from "pg"
import { vi } from "vitest"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { answerOf, apiClient, asJson, expectError, expectStatus, failureOf, pageCursor } from "./fixtures/client.js"
import { actor, community } from "./fixtures/community.js"
import { makeAttribute, makeCategory, makeListing } from "./fixtures/listings.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeSuperAdmin, type TestUser } from "./fixtures/users.js"

const LISTINGS = "/api/v2/listings"
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>

/**
 * A raw request from an address of its own (listing creation is limited per IP), for bodies and queries the
 * contract refuses to send and for wire-level checks.
 */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** The typed client of `headers` from an address of its own, so that creation never meets its per-IP limit here. */
const clientOf = (headers: Headers) => apiClient({ ...fromIp(randomIp()), ...headers })

const listingPath = (id: number) => ({ path: { id: ListingId.make(id) } })

const listingRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Record<string, unknown>>`SELECT * FROM listings WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]))
  )

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

/** Ids of the public list of `tenant` (anonymous). */
const publicIds = (tenant: Tenant, urlParams: ListListingsParams = {}) =>
  Effect.flatMap(clientOf(tenantHeaders(tenant)), (client) =>
    Effect.map(
      client.listings.list({ urlParams, withResponse: true }).pipe(expectStatus(200)),
      (page) => page.data.map((l) => l.id)
    ))

const summaryOf = (user: TestUser, first: string, last: string) => ({
  id: user.id,
  first_name: first,
  last_name: last,
  avatar_url: null
})

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("listings", (it) => {
  describe("create and read", () => {
    it.effect("POST creates an active listing (201) with owner, category and attributes; ListingCreated; GET shows it", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Garden Work" })
        const colour = yield* makeAttribute(tenant, { type: "select", options: ["red", "green"] })
        const size = yield* makeAttribute(tenant, { type: "number" })
        // An untrimmed title, which the typed client refuses to send, and the exact body: raw.
        const res = yield* call("POST", LISTINGS, memberHeaders, {
          type: "offer",
          title: "  Hedge trimming  ",
          description: "I trim hedges on Saturdays",
          category_id: category.id,
          hours_estimate: 1.5,
          location: "Riverside",
          attributes: { [colour.key]: "green", [size.key]: 3 }
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<{ id: number; created_at: string; updated_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            type: "offer",
            title: "Hedge trimming",
            description: "I trim hedges on Saturdays",
            status: "active",
            hours_estimate: 1.5,
            location: "Riverside",
            category_id: category.id,
            category: { id: category.id, name: "Garden Work", slug: "garden-work" },
            attributes: { [colour.key]: "green", [size.key]: 3 },
            user_id: member.id,
            user: summaryOf(member, "Mia", "Member"),
            created_at: created.created_at,
            updated_at: created.updated_at
          },
          meta: {}
        })
        assert.match(created.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        const row = yield* listingRow(created.id)
        assert.include(row, { tenant_id: String(tenant.id), user_id: String(member.id), status: "active" })
        assert.strictEqual(row!["hours_estimate"], "1.50")
        assert.deepInclude(yield* eventsOf(tenant, "ListingCreated"), {
          listing_id: created.id,
          user_id: member.id,
          type: "offer",
          title: "Hedge trimming",
          status: "active",
          category_id: category.id
        })

        // Anyone may read it, without a token; the typed client decodes the same shape.
        const client = yield* clientOf(anonymous)
        const got = yield* client.listings.get({ ...listingPath(created.id), withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.deepStrictEqual(asJson(got), res.body)
        const listed = yield* client.listings.list({ urlParams: {} })
        assert.deepStrictEqual(listed.data.map((l) => l.id), [created.id])
        assert.deepStrictEqual(listed.meta, { per_page: 20, has_more: false })
        assert.deepStrictEqual(listed.data[0]!.category, { id: category.id, name: "Garden Work", slug: "garden-work" })
      }))

    it.effect("only type, title and description are needed; the optional fields are null or empty", () =>
      Effect.gen(function*() {
        const { memberHeaders } = yield* community()
        const client = yield* clientOf(memberHeaders)
        const created = yield* client.listings.create({
          payload: { type: "request", title: "Lift", description: "To the station" }
        })
        assert.include(created.data, {
          type: "request",
          status: "active",
          hours_estimate: null,
          location: null,
          category_id: null,
          category: null
        })
        assert.deepStrictEqual(created.data.attributes, {})
      }))

    it.effect("bad input is 422 VALIDATION_ERROR naming each field, and nothing is written", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const eventCategory = yield* makeCategory(tenant, { type: "event" })
        const foreign = yield* makeCategory(yield* makeTenant())
        // Bodies the contract refuses to send: raw.
        const cases: Array<readonly [unknown, ReadonlyArray<string>]> = [
          [{ type: "swap", title: "ab", description: "" }, ["type", "title", "description"]],
          [{ type: "offer", title: "  ab  ", description: "x" }, ["title"]],
          [{ type: "offer", title: "x".repeat(256), description: "x" }, ["title"]],
          [{ type: "offer", title: 42, description: ["x"] }, ["title", "description"]],
          [{ title: "Okay title", description: "x" }, ["type"]],
          [{ type: "offer", title: "Okay title", description: "x", hours_estimate: 1.234 }, ["hours_estimate"]],
          [{ type: "offer", title: "Okay title", description: "x", hours_estimate: -1 }, ["hours_estimate"]],
          [{ type: "offer", title: "Okay title", description: "x", hours_estimate: "2" }, ["hours_estimate"]],
          [{ type: "offer", title: "Okay title", description: "x", category_id: "abc" }, ["category_id"]],
          [{ type: "offer", title: "Okay title", description: "x", category_id: 0 }, ["category_id"]],
          [{ type: "offer", title: "Okay title", description: "x", attributes: [] }, ["attributes"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("POST", LISTINGS, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        // Categories the community's rules refuse.
        const client = yield* clientOf(memberHeaders)
        for (const category_id of [99_999_999, foreign.id, eventCategory.id]) {
          const res = yield* client.listings.create({
            payload: { type: "offer", title: "Okay title", description: "x", category_id }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.sameMembers([...res.fields], ["category_id"], String(category_id))
        }
        const notJson = yield* rawRequest("POST", LISTINGS, {
          headers: { ...memberHeaders, ...fromIp(randomIp()) },
          body: "{nope"
        })
        assert.strictEqual(notJson.status, 400)
        assert.strictEqual(codeOf(notJson.body), "INVALID_JSON")
        assert.deepStrictEqual(yield* publicIds(tenant), [])
      }))

    it.effect("attribute values are checked against the definitions: 422 on attributes.<id>", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const colour = yield* makeAttribute(tenant, { type: "select", options: ["red", "green"], required: true })
        const size = yield* makeAttribute(tenant, { type: "number" })
        const pets = yield* makeAttribute(tenant, { type: "boolean" })
        const note = yield* makeAttribute(tenant, { type: "text" })
        const foreign = yield* makeAttribute(yield* makeTenant(), { type: "text" })
        const base = { type: "offer", title: "Dog walking", description: "Twice a week" } as const
        // A client from a new address for each creation: creation is limited to 10 per minute per address.
        const fresh = () => clientOf(memberHeaders)
        const cases: Array<readonly [Record<string, string | number | boolean | null>, ReadonlyArray<string>]> = [
          [{}, [`attributes.${colour.key}`]],
          [{ [colour.key]: null }, [`attributes.${colour.key}`]],
          [{ [colour.key]: "blue" }, [`attributes.${colour.key}`]],
          [{ [colour.key]: "red", [size.key]: "3" }, [`attributes.${size.key}`]],
          [{ [colour.key]: "red", [pets.key]: "yes" }, [`attributes.${pets.key}`]],
          [{ [colour.key]: "red", [note.key]: 12 }, [`attributes.${note.key}`]],
          [{ [colour.key]: "red", [note.key]: "x".repeat(1001) }, [`attributes.${note.key}`]],
          [{ [colour.key]: "red", [foreign.key]: "x" }, [`attributes.${foreign.key}`]],
          [{ [colour.key]: "red", size: 3 }, ["attributes.size"]],
          [{ [size.key]: true, [pets.key]: 1 }, [
            `attributes.${colour.key}`,
            `attributes.${size.key}`,
            `attributes.${pets.key}`
          ]]
        ]
        for (const [attributes, fields] of cases) {
          const res = yield* (yield* fresh()).listings.create({ payload: { ...base, attributes } }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.sameMembers([...res.fields], [...fields], JSON.stringify(attributes))
        }
        // A value that is no attribute value at all: raw.
        const objectValue = yield* call("POST", LISTINGS, memberHeaders, {
          ...base,
          attributes: { [colour.key]: "red", [size.key]: { n: 3 } }
        })
        assert.strictEqual(objectValue.status, 422, objectValue.text)
        assert.strictEqual(codeOf(objectValue.body), "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(objectValue.body), [`attributes.${size.key}`])
        // Category and attribute problems come back together.
        const both = yield* failureOf(
          (yield* fresh()).listings.create({ payload: { ...base, category_id: 99_999_999, attributes: {} } })
        )
        assert.sameMembers([...both.fields], ["category_id", `attributes.${colour.key}`])
        assert.deepStrictEqual(yield* publicIds(tenant), [])

        const ok = yield* (yield* fresh()).listings.create({
          payload: {
            ...base,
            attributes: { [colour.key]: "red", [size.key]: 2.5, [pets.key]: false, [note.key]: "  ", [size.key]: 0 }
          },
          withResponse: true
        }).pipe(expectStatus(201))
        // Empty text means no value; values are stored as given, keyed by attribute id.
        assert.deepStrictEqual(ok.data.attributes, {
          [colour.key]: "red",
          [size.key]: 0,
          [pets.key]: false
        })
      }))

    it.effect("a platform super-admin visiting a community cannot post there (403); creation needs a token (401)", () =>
      Effect.gen(function*() {
        const { anonymous, tenant } = yield* community()
        const superAdmin = yield* actor(yield* makeSuperAdmin())
        const payload = { type: "offer", title: "Not mine", description: "x" } as const
        const visiting = yield* clientOf({ ...superAdmin.headers, ...tenantHeaders(tenant) })
        yield* visiting.listings.create({ payload }).pipe(expectError(403, "FORBIDDEN"))
        const anon = yield* clientOf(anonymous)
        yield* anon.listings.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const badToken = yield* clientOf({ ...anonymous, authorization: "Bearer nope" })
        assert.strictEqual((yield* failureOf(badToken.listings.create({ payload }))).status, 401)
        assert.deepStrictEqual(yield* publicIds(tenant), [])
      }))
  })

  describe("update and delete", () => {
    it.effect("the owner edits: fields change, null clears, attributes are replaced; ListingUpdated names the fields", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const category = yield* makeCategory(tenant)
        const other = yield* makeCategory(tenant, { name: "Other One" })
        const note = yield* makeAttribute(tenant, { type: "text" })
        const flag = yield* makeAttribute(tenant, { type: "boolean" })
        const listing = yield* makeListing(member, {
          categoryId: category.id,
          hoursEstimate: 2,
          location: "Town",
          attributes: { [note.key]: "hello" }
        })
        const client = yield* clientOf(memberHeaders)
        const path = listingPath(listing.id)
        const res = yield* client.listings.update({
          ...path,
          payload: {
            title: "New title",
            type: "request",
            category_id: other.id,
            hours_estimate: null,
            location: null,
            attributes: { [flag.key]: true }
          },
          withResponse: true
        }).pipe(expectStatus(200))
        includes(res.data, {
          id: listing.id,
          title: "New title",
          type: "request",
          category_id: other.id,
          category: { id: other.id, name: "Other One", slug: "other-one" },
          hours_estimate: null,
          location: null,
          attributes: { [flag.key]: true },
          status: "active",
          user_id: member.id
        })
        const row = yield* listingRow(listing.id)
        assert.include(row, { title: "New title", type: "request", hours_estimate: null, location: null })
        assert.deepInclude(yield* eventsOf(tenant, "ListingUpdated"), {
          listing_id: listing.id,
          user_id: member.id,
          fields: ["type", "title", "category_id", "hours_estimate", "location", "attributes"],
          status: "active",
          updated_by: member.id
        })

        // Without `attributes` the values stay; {} changes nothing and records nothing.
        const titleOnly = yield* client.listings.update({ ...path, payload: { description: "Changed" } })
        includes(titleOnly.data, { description: "Changed", attributes: { [flag.key]: true } })
        const before = (yield* eventsOf(tenant, "ListingUpdated")).length
        const empty = yield* client.listings.update({ ...path, payload: {}, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.strictEqual(empty.data.description, "Changed")
        assert.strictEqual((yield* eventsOf(tenant, "ListingUpdated")).length, before)

        // The contract's checks answer first (a body it refuses to send: raw); the community's rules (category,
        // attributes) then come together.
        const short = yield* call("PUT", `${LISTINGS}/${listing.id}`, memberHeaders, { title: "x", type: "swap" })
        assert.strictEqual(short.status, 422)
        assert.sameMembers(fieldsOf(short.body), ["title", "type"])
        const bad = yield* failureOf(client.listings.update({
          ...path,
          payload: { title: "Fine title", category_id: 99_999_999, attributes: { [note.key]: false } }
        }))
        assert.strictEqual(bad.status, 422)
        assert.sameMembers([...bad.fields], ["category_id", `attributes.${note.key}`])
        assert.include(yield* listingRow(listing.id), { title: "New title" })
      }))

    it.effect("a community admin may edit and delete any listing; another member gets 403 and nothing changes", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community()
        const listing = yield* makeListing(member, { title: "Original" })
        const path = listingPath(listing.id)
        yield* other.client.listings.update({ ...path, payload: { title: "Hijacked" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.strictEqual((yield* failureOf(other.client.listings.delete(path))).status, 403)
        assert.include(yield* listingRow(listing.id), { title: "Original", deleted_at: null })

        const edited = yield* admin.client.listings.update({
          ...path,
          payload: { title: "Moderated" },
          withResponse: true
        })
          .pipe(expectStatus(200))
        includes(edited.data, { title: "Moderated", user_id: member.id })
        assert.deepInclude(yield* eventsOf(tenant, "ListingUpdated"), {
          listing_id: listing.id,
          user_id: member.id,
          fields: ["title"],
          status: "active",
          updated_by: admin.id
        })
        const deleted = yield* admin.client.listings.delete(path)
        assert.deepStrictEqual(deleted, { data: { id: listing.id, deleted: true }, meta: {} })
        assert.deepInclude(yield* eventsOf(tenant, "ListingDeleted"), {
          listing_id: listing.id,
          user_id: member.id,
          type: "offer",
          status: "active",
          deleted_by: admin.id
        })
      }))

    it.effect("the owner deletes: 200, then it is gone everywhere (404, not listed) but the row stays", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const listing = yield* makeListing(member)
        const kept = yield* makeListing(member)
        const path = listingPath(listing.id)
        const res = yield* member.client.listings.delete({ ...path, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(res.data, { id: listing.id, deleted: true })
        assert.notStrictEqual((yield* listingRow(listing.id))!["deleted_at"], null)
        assert.deepStrictEqual(yield* publicIds(tenant), [kept.id])
        const again: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          visitor.client.listings.get(path),
          member.client.listings.update({ ...path, payload: { title: "Back" } }),
          member.client.listings.delete(path)
        ]
        for (const call of again) yield* call.pipe(expectError(404, "NOT_FOUND"))
        assert.deepInclude(yield* eventsOf(tenant, "ListingDeleted"), {
          listing_id: listing.id,
          user_id: member.id,
          type: "offer",
          status: "active",
          deleted_by: member.id
        })
      }))

    it.effect("PUT and DELETE need a token (401)", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
        const listing = yield* makeListing(member)
        const path = listingPath(listing.id)
        yield* visitor.client.listings.update({ ...path, payload: { title: "New one" } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
        yield* visitor.client.listings.delete(path).pipe(expectError(401, "AUTH_REQUIRED"))
        assert.include(yield* listingRow(listing.id), { deleted_at: null })
      }))
  })

  describe("tenancy", () => {
    it.effect("another community's listing is 404 on every {id} route, for members and admins alike", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const foreign = yield* makeListing(b.member, { title: "Theirs" })
        const foreignPending = yield* makeListing(b.member, { status: "pending" })
        for (const id of [foreign.id, foreignPending.id]) {
          const path = listingPath(id)
          for (const { client } of [a.member, a.admin]) {
            const calls: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
              client.listings.get(path),
              client.listings.update({ ...path, payload: { title: "Mine now" } }),
              client.listings.delete(path)
            ]
            for (const call of calls) yield* call.pipe(expectError(404, "NOT_FOUND"))
          }
        }
        for (const id of [foreign.id, foreignPending.id]) {
          assert.strictEqual((yield* failureOf(a.visitor.client.listings.get(listingPath(id)))).status, 404)
        }
        assert.include(yield* listingRow(foreign.id), { title: "Theirs", deleted_at: null })
        assert.deepStrictEqual(yield* publicIds(a.tenant), [])
        // A token of tenant A used on tenant B is refused outright.
        const crossed = yield* clientOf({ ...a.memberHeaders, ...tenantHeaders(b.tenant) })
        const refused = yield* failureOf(
          crossed.listings.update({ ...listingPath(foreign.id), payload: { title: "Crossed" } })
        )
        assert.strictEqual(refused.status, 401)
        // Ids the contract cannot express: raw.
        for (const id of ["abc", "0", "-1", "1.5"]) {
          assert.strictEqual((yield* call("GET", `${LISTINGS}/${id}`, a.anonymous)).status, 404, id)
        }
        const noTenant = yield* clientOf({})
        yield* noTenant.listings.list({ urlParams: {} }).pipe(expectError(400, "tenant_required"))
      }))
  })

  describe("moderation", () => {
    it.effect("with listing_moderation on a new listing is pending: hidden from the public, seen by owner and admins", () =>
      Effect.gen(function*() {
        const { admin, anonymous, member, other, tenant, visitor } = yield* community({
          settings: { listing_moderation: true }
        })
        const visible = yield* makeListing(member)
        const res = yield* member.client.listings.create({
          payload: { type: "offer", title: "Bike repair", description: "x" },
          withResponse: true
        }).pipe(expectStatus(201))
        const created = res.data
        assert.strictEqual(created.status, "pending")
        includes((yield* eventsOf(tenant, "ListingCreated")).find((e) => e["listing_id"] === created.id), {
          status: "pending"
        })

        assert.deepStrictEqual(yield* publicIds(tenant), [visible.id])
        assert.deepStrictEqual(yield* publicIds(tenant, { user_id: member.id }), [visible.id])
        const path = { path: { id: created.id } }
        for (const { client } of [visitor, other]) {
          assert.strictEqual((yield* failureOf(client.listings.get(path))).status, 404)
          const edit = yield* failureOf(client.listings.update({ ...path, payload: { title: "Mine now" } }))
          assert.include([401, 404], edit.status)
        }
        // A token that is no good here is refused as such, never read as an anonymous caller (D4).
        const badToken = yield* clientOf({ ...anonymous, authorization: "Bearer no" })
        assert.strictEqual((yield* failureOf(badToken.listings.get(path))).status, 401)
        for (const { client } of [member, admin]) {
          const seen = yield* client.listings.get({ ...path, withResponse: true }).pipe(expectStatus(200))
          assert.strictEqual(seen.data.status, "pending")
        }
        // The owner may still edit it while it waits; it stays pending.
        const edited = yield* member.client.listings.update({ ...path, payload: { title: "Bike repairs" } })
        includes(edited.data, { title: "Bike repairs", status: "pending" })

        const approved = yield* admin.client.adminListings.approve({ ...path, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.strictEqual(approved.data.status, "active")
        assert.deepStrictEqual(yield* publicIds(tenant), [created.id, visible.id])
        yield* visitor.client.listings.get({ ...path, withResponse: true }).pipe(expectStatus(200))
      }))
  })

  describe("feature gate", () => {
    it.effect("with listings switched off every listing route is 403 FEATURE_DISABLED; categories stay readable", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community({ features: { listings: false } })
        const listing = yield* makeListing(member)
        const path = listingPath(listing.id)
        const routes: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          visitor.client.listings.list({ urlParams: {} }),
          visitor.client.listings.get(path),
          member.client.listings.create({ payload: { type: "offer", title: "Gated", description: "x" } }),
          member.client.listings.update({ ...path, payload: { title: "Gated" } }),
          member.client.listings.delete(path)
        ]
        for (const route of routes) yield* route.pipe(expectError(403, "FEATURE_DISABLED"))
        assert.include(yield* listingRow(listing.id), { deleted_at: null })
        yield* visitor.client.categories.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
        const enabled = yield* makeTenant()
        assert.isArray(yield* publicIds(enabled))
      }))
  })

  describe("list", () => {
    it.effect("pages newest first by cursor (per_page default 20, at most 50), with filters that keep paging", () =>
      Effect.gen(function*() {
        const { admin, anonymous, member, other, tenant } = yield* community()
        const garden = yield* makeCategory(tenant, { name: "Garden" })
        const made: Array<{ id: number; type: string; categoryId: number | null; userId: number; title: string }> = []
        for (let i = 0; i < 27; i++) {
          const owner = [member, other, admin][i % 3]!
          const type = i % 2 === 0 ? "offer" : "request"
          const categoryId = i % 3 === 0 ? garden.id : null
          const title = i % 5 === 0 ? `Fix_100% bikes ${i}` : `Listing ${i}`
          const l = yield* makeListing(owner, { type, categoryId, title })
          made.push({ id: l.id, type, categoryId, userId: owner.id, title })
        }
        yield* makeListing(member, { status: "pending", title: "Fix_100% pending" })
        const newestFirst = [...made].reverse()

        const client = yield* clientOf(anonymous)
        const all = yield* client.listings.list({ urlParams: {} })
        assert.deepStrictEqual(all.data.map((l) => l.id), newestFirst.slice(0, 20).map((l) => l.id))
        assert.strictEqual(all.meta.per_page, 20)
        assert.strictEqual(all.meta.has_more, true)

        /** Follows the cursor through every page of `query` and returns the ids in order. */
        const walk = (query: Omit<ListListingsParams, "per_page" | "cursor">, perPage: number) =>
          Effect.gen(function*() {
            const ids: Array<number> = []
            let cursor: string | undefined
            let pages = 0
            do {
              const page = yield* client.listings.list({
                urlParams: {
                  ...query,
                  per_page: perPage,
                  ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
                },
                withResponse: true
              }).pipe(expectStatus(200))
              assert.isAtMost(page.data.length, perPage)
              assert.strictEqual(page.meta.per_page, perPage)
              ids.push(...page.data.map((l) => l.id))
              cursor = page.meta.cursor
              assert.strictEqual(page.meta.has_more, cursor !== undefined)
              pages++
            } while (cursor !== undefined && pages < 20)
            return { ids, pages }
          })

        const everything = yield* walk({}, 10)
        assert.deepStrictEqual(everything.ids, newestFirst.map((l) => l.id))
        assert.strictEqual(everything.pages, 3)
        const expect = (keep: (l: typeof made[number]) => boolean) => newestFirst.filter(keep).map((l) => l.id)
        assert.deepStrictEqual((yield* walk({ type: "offer" }, 4)).ids, expect((l) => l.type === "offer"))
        assert.deepStrictEqual(
          (yield* walk({ category_id: garden.id }, 4)).ids,
          expect((l) => l.categoryId === garden.id)
        )
        assert.deepStrictEqual(
          (yield* walk({ type: "request", category_id: garden.id }, 2)).ids,
          expect((l) => l.type === "request" && l.categoryId === garden.id)
        )
        assert.deepStrictEqual((yield* walk({ user_id: other.id }, 5)).ids, expect((l) => l.userId === other.id))
        // search matches title or description, case-insensitively, with % and _ as plain characters.
        assert.deepStrictEqual(
          (yield* walk({ search: "FIX_100%" }, 2)).ids,
          expect((l) => l.title.startsWith("Fix_100%"))
        )
        assert.deepStrictEqual((yield* walk({ search: "share with" }, 50)).ids, newestFirst.map((l) => l.id))
        assert.deepStrictEqual((yield* walk({ search: "nothing-like-this" }, 5)).ids, [])
        assert.deepStrictEqual((yield* walk({ category_id: 99999999 }, 5)).ids, [])
        const full = yield* walk({}, 50)
        assert.strictEqual(full.pages, 1)

        // Queries the contract refuses to send: raw.
        for (
          const [query, field] of [
            ["cursor=not-a-cursor", "cursor"],
            ["per_page=51", "per_page"],
            ["per_page=0", "per_page"],
            ["type=swap", "type"],
            ["category_id=abc", "category_id"],
            ["user_id=-3", "user_id"]
          ] as const
        ) {
          const res = yield* call("GET", `${LISTINGS}?${query}`, anonymous)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
      }))

    it.effect("each item carries its own owner and category, loaded in one statement for the whole page (no N+1)", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community()
        const cats = [yield* makeCategory(tenant), yield* makeCategory(tenant), yield* makeCategory(tenant)]
        const owners = [member, other, admin]
        const names = { [member.id]: "Mia", [other.id]: "Otto", [admin.id]: "Ada" } as Record<number, string>
        for (let i = 0; i < 12; i++) {
          yield* makeListing(owners[i % 3]!, { categoryId: cats[i % 3]!.id, title: `Owner ${i % 3}` })
        }
        const anonymous = yield* clientOf(tenantHeaders(tenant))
        const items = (yield* anonymous.listings.list({ urlParams: { per_page: 50 } })).data
        assert.strictEqual(items.length, 12)
        for (const item of items) {
          const index = Number(item.title.slice(-1))
          assert.strictEqual(item.user_id, owners[index]!.id)
          assert.strictEqual(item.user.id, owners[index]!.id)
          assert.strictEqual(item.user.first_name, names[owners[index]!.id])
          assert.strictEqual(item.category?.id, cats[index]!.id)
        }

        // The page with its owners and categories is ONE statement, whatever the page size: counted at the driver
        // (the page is a prepared statement, which the statement compiler never sees); only statements that read
        // listings, users or categories count, so the test process's background work does not.
        const sent = vi.spyOn(pg.Client.prototype, "query")
        let calls: ReadonlyArray<ReadonlyArray<unknown>> = []
        const page = yield* Effect.flatMap(ListingsService, (listings) => listings.list({ per_page: 50 })).pipe(
          Effect.provide(ListingsService.Default),
          Effect.provideService(CurrentTenant, tenant),
          // Restoring the spy clears what it recorded: take the calls first.
          Effect.ensuring(Effect.sync(() => {
            calls = [...sent.mock.calls]
            sent.mockRestore()
          }))
        )
        const statements = calls
          .map(([config]) => (typeof config === "string" ? config : (config as { text?: string }).text ?? ""))
          .filter((text) => /FROM (listings|users|categories)\b/.test(text))
        assert.strictEqual(page.data.length, 12)
        assert.strictEqual(statements.length, 1, statements.join("\n"))
        assert.match(statements[0]!, /FROM listings[\s\S]*FROM categories[\s\S]*FROM users/)
      }))
  })

  describe("rate limit", () => {
    it.effect("creation: 10 per minute per IP, then 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const client = yield* clientOf(memberHeaders)
        const payload = { type: "offer", title: "Quick one", description: "x" } as const
        for (let i = 0; i < 10; i++) {
          const [, res] = yield* client.listings.create({ payload, withResponse: true })
          assert.strictEqual(res.status, 201, String(i))
          assert.strictEqual(res.headers["x-ratelimit-limit"], "10")
          assert.strictEqual(res.headers["x-ratelimit-remaining"], String(9 - i))
        }
        const limited = yield* answerOf(client.listings.create({ payload }))
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.failure?.code, "RATE_LIMITED")
        assert.isAtLeast(Number(limited.headers["retry-after"]), 1)
        assert.strictEqual((yield* publicIds(tenant, { per_page: 50 })).length, 10)
        // Another address has its own budget; reads are not limited.
        const elsewhere = yield* clientOf(memberHeaders)
        yield* elsewhere.listings.create({ payload, withResponse: true }).pipe(expectStatus(201))
        const [, read] = yield* client.listings.list({ urlParams: {}, withResponse: true })
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.headers["x-ratelimit-limit"], undefined)
      }))
  })
})
