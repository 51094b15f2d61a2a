import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import {
  type AlgorithmArea,
  type AlgorithmSettingInput,
  encodeCursor,
  ListingsCursor,
  type ListListingsParams,
  type Tenant
} from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectOk, pageCursor } from "./fixtures/client.js"
import { type Community, community } from "./fixtures/community.js"
import { makeListing } from "./fixtures/listings.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeUser, type TestUser } from "./fixtures/users.js"

/** Sets an area's algorithm the way an admin does (D17 `PUT /admin/config/algorithm/{area}`). */
const setAlgorithm = (c: Community, area: AlgorithmArea, payload: AlgorithmSettingInput) =>
  expectOk(c.admin.client.adminConfigAreas.setAlgorithm({ path: { area }, payload }))

const backdate = (table: "listings" | "users", id: number, days: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE ${sql(table)} SET created_at = now() - make_interval(days => ${days}) WHERE id = ${id}`.pipe(
        Effect.orDie
      )
  )

/** A visitor's client from an address of its own (the listing routes are limited per IP). */
const visitorOf = (tenant: Tenant) => apiClient({ ...fromIp(randomIp()), ...tenantHeaders(tenant) })

/** Every page of `query`, `perPage` at a time, following the cursor; `between` runs after the first page. */
const walk = <R = never>(
  client: ApiClient,
  query: Omit<ListListingsParams, "per_page" | "cursor">,
  perPage: number,
  between: Effect.Effect<unknown, never, R> = Effect.void
) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = yield* expectOk(client.listings.list({
        urlParams: {
          ...query,
          per_page: perPage,
          ...(cursor === undefined ? {} : { cursor: pageCursor(ListingsCursor, cursor) })
        }
      }))
      ids.push(...page.data.map((l) => l.id))
      cursor = page.meta.cursor
      assert.strictEqual(page.meta.has_more, cursor !== undefined)
      if (pages++ === 0) yield* between
    } while (cursor !== undefined && pages < 20)
    return ids
  })

/**
 * Three listings matching "garden" and one that does not. Text rank: `exact` (title) > `desc` (description) >
 * `prefix` (title "Gardening…"); age: `desc` 1 day, `prefix` 10 days, `exact` 60 days; ids (newest first):
 * prefix, desc, exact.
 */
const gardenListings = (owner: TestUser) =>
  Effect.gen(function*() {
    const exact = yield* makeListing(owner, { title: "Garden help", description: "Weeding and planting" })
    const desc = yield* makeListing(owner, { title: "Bike repair", description: "I fix bikes, also garden bikes" })
    const prefix = yield* makeListing(owner, { title: "Gardening tools", description: "Lending tools" })
    yield* makeListing(owner, { title: "Piano lessons", description: "Scales and songs" })
    yield* backdate("listings", exact.id, 60)
    yield* backdate("listings", desc.id, 1)
    yield* backdate("listings", prefix.id, 10)
    return { exact: exact.id, desc: desc.id, prefix: prefix.id }
  })

describe("listings and members in the order of the community's algorithms", () => {
  layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("listings: recency (the default) is newest first; relevance by text rank; hybrid weighs both", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const l = yield* gardenListings(c.member)
        const client = yield* visitorOf(c.tenant)
        const newest = [l.prefix, l.desc, l.exact]
        const all = yield* walk(client, {}, 50)
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 50), newest)

        yield* setAlgorithm(c, "listings", { algorithm: "relevance" })
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 50), [l.exact, l.desc, l.prefix])
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 1), [l.exact, l.desc, l.prefix])
        // Without a search term there is nothing to rank by: newest first, as before.
        assert.deepStrictEqual(yield* walk(client, {}, 2), all)

        yield* setAlgorithm(c, "listings", { algorithm: "hybrid" })
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 50), [l.desc, l.prefix, l.exact])
        yield* setAlgorithm(c, "listings", { algorithm: "hybrid", weights: { recency: 0, relevance: 2 } })
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 50), [l.exact, l.desc, l.prefix])

        yield* setAlgorithm(c, "listings", { algorithm: "recency", weights: {} })
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 1), newest)

        // Each ranking was measured: the area's health shows its runs.
        const health = yield* expectOk(c.admin.client.adminConfigAreas.algorithmHealth())
        const listings = health.data.find((h) => h.area === "listings")
        assert.isAtLeast(listings?.runs ?? 0, 12)
        assert.isNotNull(listings?.last_run_at)
      }))

    it.effect("a ranked walk keeps its order: a new listing or an algorithm change meanwhile moves nothing", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const l = yield* gardenListings(c.member)
        const client = yield* visitorOf(c.tenant)
        yield* setAlgorithm(c, "listings", { algorithm: "hybrid" })
        let added = 0
        const addOne = Effect.map(makeListing(c.other, { title: "Garden party" }), (made) => {
          added = made.id
        })
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 1, Effect.orDie(addOne)), [
          l.desc,
          l.prefix,
          l.exact
        ])
        // A new walk sees the new listing first (fresh and a title match).
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 50), [added, l.desc, l.prefix, l.exact])

        const switchToRecency = Effect.orDie(setAlgorithm(c, "listings", { algorithm: "recency" }))
        yield* setAlgorithm(c, "listings", { algorithm: "relevance" })
        // "Garden party" and "Garden help" rank alike: the newer first.
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 2, switchToRecency), [
          added,
          l.exact,
          l.desc,
          l.prefix
        ])
        assert.deepStrictEqual(yield* walk(client, { search: "garden" }, 2), [added, l.prefix, l.desc, l.exact])
      }))

    it.effect("one community's algorithm never orders another's listings; a forged rank cursor is 422", () =>
      Effect.gen(function*() {
        const a = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const la = yield* gardenListings(a.member)
        const lb = yield* gardenListings(b.member)
        yield* setAlgorithm(a, "listings", { algorithm: "relevance" })
        assert.deepStrictEqual(yield* walk(yield* visitorOf(a.tenant), { search: "garden" }, 50), [
          la.exact,
          la.desc,
          la.prefix
        ])
        assert.deepStrictEqual(yield* walk(yield* visitorOf(b.tenant), { search: "garden" }, 50), [
          lb.prefix,
          lb.desc,
          lb.exact
        ])

        const forged = [
          { at: 0, recency: 11, relevance: 1, score: 0, id: la.exact },
          { at: 0, recency: 1, relevance: 1, score: "high", id: la.exact },
          { at: -5, recency: 1, relevance: 1, score: 0, id: la.exact },
          { at: 1e20, recency: 1, relevance: 1, score: 0, id: la.exact },
          { at: 0, recency: 1, relevance: 1, score: 0, id: 0 }
        ]
        for (const cursor of forged) {
          const res = yield* rawRequest("GET", `/api/v2/listings?search=garden&cursor=${encodeCursor(cursor)}`, {
            headers: { ...fromIp(randomIp()), ...tenantHeaders(a.tenant) }
          })
          assert.deepStrictEqual([res.status, codeOf(res.body), fieldsOf(res.body)], [422, "VALIDATION_ERROR", [
            "cursor"
          ]])
        }
        // Valid extremes: the scores stay finite (recency is clamped), every listing is below such a cursor.
        for (const at of [0, 8_640_000_000_000_000]) {
          const cursor = encodeCursor({ at, recency: 10, relevance: 10, score: 1e308, id: la.exact })
          const res = yield* rawRequest("GET", `/api/v2/listings?search=garden&cursor=${cursor}`, {
            headers: { ...fromIp(randomIp()), ...tenantHeaders(a.tenant) }
          })
          assert.strictEqual(res.status, 200)
          assert.lengthOf(dataOf<Array<unknown>>(res.body), 3)
        }
      }))

    it.effect("members (the admin's user list): newest first by default; relevance and hybrid with offset pages", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const name = yield* makeUser(c.tenant, { firstName: "John", lastName: "Smith" })
        const mail = yield* makeUser(c.tenant, {
          firstName: "Zed",
          lastName: "Zulu",
          email: `smith-${Date.now()}@example.org`
        })
        const prefix = yield* makeUser(c.tenant, { firstName: "Smithers", lastName: "Jones" })
        yield* backdate("users", name.id, 100)
        yield* backdate("users", mail.id, 2)
        yield* backdate("users", prefix.id, 50)
        const search = (page?: number) =>
          Effect.map(
            expectOk(c.admin.client.adminUsers.list({
              urlParams: { search: "smith", per_page: 2, ...(page === undefined ? {} : { page }) }
            })),
            (res) => ({ ids: res.data.map((u) => u.id), total: res.meta.total })
          )
        const both = Effect.map(Effect.all([search(1), search(2)]), ([one, two]) => {
          assert.deepStrictEqual([one.total, two.total], [3, 3])
          return [...one.ids, ...two.ids]
        })

        assert.deepStrictEqual(yield* both, [prefix.id, mail.id, name.id])
        yield* setAlgorithm(c, "members", { algorithm: "relevance" })
        assert.deepStrictEqual(yield* both, [name.id, mail.id, prefix.id])
        yield* setAlgorithm(c, "members", { algorithm: "hybrid" })
        assert.deepStrictEqual(yield* both, [mail.id, name.id, prefix.id])
        // Without a search term: newest first, whatever the algorithm.
        const everyone = yield* expectOk(c.admin.client.adminUsers.list({ urlParams: { per_page: 100 } }))
        const ids = everyone.data.map((u) => u.id)
        assert.deepStrictEqual(ids, [...ids].sort((x, y) => y - x))

        // The listings area is another area: still newest first.
        const l = yield* gardenListings(c.member)
        assert.deepStrictEqual(yield* walk(yield* visitorOf(c.tenant), { search: "garden" }, 50), [
          l.prefix,
          l.desc,
          l.exact
        ])
        const health = yield* expectOk(c.admin.client.adminConfigAreas.algorithmHealth())
        assert.isAtLeast(health.data.find((h) => h.area === "members")?.runs ?? 0, 7)
      }))
  })
})
