import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf } from "../fixtures/bodies.js"
import { apiClient, expectError } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { CACHES, clearAs, statsOf, useCaches } from "./cacheKit.js"

const CLEAR = "/api/v2/admin/cache/clear"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin cache", (it) => {
  it.effect("stats list every cache and count this community's real lookups", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const other = yield* community({ signIn: "token" })
      const before = yield* statsOf(c.adminHeaders)
      assert.deepStrictEqual(Object.keys(before).sort(), CACHES)
      // Nothing read this community's configuration or switches yet.
      assert.deepStrictEqual(before["config-documents"], { name: "config-documents", entries: 0, hits: 0, misses: 0 })
      assert.deepStrictEqual(before["federation-switches"], {
        name: "federation-switches",
        entries: 0,
        hits: 0,
        misses: 0
      })

      yield* useCaches(c, 3)
      const after = yield* statsOf(c.adminHeaders)
      const resolution = after["tenant-resolution"]!
      const was = before["tenant-resolution"]!
      // The slug's first request read the database, the next two did not; the member's browse request and the
      // stats call itself resolved the community by id.
      assert.isAtLeast(resolution.misses - was.misses, 1)
      assert.isAtLeast(resolution.hits - was.hits, 2)
      assert.strictEqual(resolution.hits + resolution.misses - was.hits - was.misses, 5)
      assert.strictEqual(resolution.entries, 2, "one entry by id, one by slug")
      assert.deepStrictEqual(after["config-documents"], { name: "config-documents", entries: 1, hits: 2, misses: 1 })
      assert.deepStrictEqual(after["federation-switches"], {
        name: "federation-switches",
        entries: 1,
        hits: 0,
        misses: 1
      })

      // Another community's stats count only its own lookups.
      const elsewhere = yield* statsOf(other.adminHeaders)
      assert.deepInclude(elsewhere["config-documents"], { entries: 0, hits: 0, misses: 0 })
      assert.deepInclude(elsewhere["federation-switches"], { entries: 0, hits: 0, misses: 0 })
      assert.strictEqual(elsewhere["tenant-resolution"]!.entries, 1)

      // A platform super-admin naming the community sees the same figures.
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const asSuper = yield* statsOf({ ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
      assert.deepStrictEqual(asSuper["config-documents"], after["config-documents"])
    }))

  it.effect("clear empties every cache of the community; its next lookups read the database again", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const other = yield* community({ signIn: "token" })
      yield* useCaches(c)
      yield* useCaches(other)
      const full = yield* statsOf(c.adminHeaders)

      const cleared = yield* clearAs(c.adminHeaders)
      assert.deepStrictEqual(cleared.map((x) => x.name), CACHES)
      const removed = Object.fromEntries(cleared.map((x) => [x.name, x.entries]))
      assert.deepInclude(removed, { "config-documents": 1, "federation-switches": 1, "tenant-resolution": 2 })

      const empty = yield* statsOf(c.adminHeaders)
      assert.strictEqual(empty["config-documents"]!.entries, 0)
      assert.strictEqual(empty["federation-switches"]!.entries, 0)
      // Only the entry this very stats request made: its lookup read the database (the clear's own was a hit).
      assert.strictEqual(empty["tenant-resolution"]!.entries, 1)
      assert.strictEqual(empty["tenant-resolution"]!.misses, full["tenant-resolution"]!.misses + 1)
      assert.strictEqual(empty["tenant-resolution"]!.hits, full["tenant-resolution"]!.hits + 1)

      // The next public read of the configuration is a miss, and is cached again.
      yield* useCaches(c, 1)
      const refilled = yield* statsOf(c.adminHeaders)
      assert.deepInclude(refilled["config-documents"], {
        entries: 1,
        hits: empty["config-documents"]!.hits,
        misses: empty["config-documents"]!.misses + 1
      })

      // The other community's entries stayed.
      const elsewhere = yield* statsOf(other.adminHeaders)
      assert.deepInclude(elsewhere["config-documents"], { entries: 1, misses: 1 })
      assert.deepInclude(elsewhere["federation-switches"], { entries: 1, misses: 1 })
    }))

  it.effect("clear of one cache leaves the others; an empty body or {} clears them all", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* useCaches(c)
      const cleared = yield* clearAs(c.adminHeaders, "config-documents")
      assert.deepStrictEqual(cleared, [{ name: "config-documents", entries: 1 }])
      const stats = yield* statsOf(c.adminHeaders)
      assert.strictEqual(stats["config-documents"]!.entries, 0)
      assert.strictEqual(stats["federation-switches"]!.entries, 1)
      assert.strictEqual(stats["tenant-resolution"]!.entries, 2)

      // No body at all.
      const noBody = yield* rawRequest("POST", CLEAR, { headers: c.adminHeaders })
      assert.strictEqual(noBody.status, 200, noBody.text)
      const all = dataOf<{ cleared: Array<{ name: string; entries: number }> }>(noBody.body).cleared
      assert.deepStrictEqual(all.map((x) => x.name), CACHES)
      assert.deepInclude(all, { name: "federation-switches", entries: 1 })
      assert.deepInclude(all, { name: "config-documents", entries: 0 })
      const after = yield* statsOf(c.adminHeaders)
      assert.strictEqual(after["federation-switches"]!.entries, 0)
    }))

  it.effect("an unknown cache or a bad body is 422 with its field, and clears nothing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* useCaches(c)
      const cases: Array<[unknown, string]> = [
        [{ cache: "nope" }, "cache"],
        [{ cache: "" }, "cache"],
        [{ cache: 5 }, "cache"],
        [{ caches: "config-documents" }, "caches"],
        [[1], ""]
      ]
      for (const [body, field] of cases) {
        const res = yield* rawRequest("POST", CLEAR, { headers: c.adminHeaders, body: JSON.stringify(body) })
        assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
        if (field !== "") assert.deepStrictEqual(errorsOf(res.body).map((e) => e.field), [field])
      }
      const stats = yield* statsOf(c.adminHeaders)
      assert.strictEqual(stats["config-documents"]!.entries, 1)
      assert.strictEqual(stats["federation-switches"]!.entries, 1)
    }))

  it.effect("no token → 401; member, broker and coordinator → 403 on both routes", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* useCaches(c)
      const anonymous = yield* apiClient(c.anonymous)
      yield* anonymous.adminCache.stats().pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminCache.clear({ payload: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const who of [c.member, broker, coordinator]) {
        yield* who.client.adminCache.stats().pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminCache.clear({ payload: { cache: "config-documents" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
      }
      // An admin of another community names this one with its token: the token is not valid here.
      const other = yield* community({ signIn: "token" })
      const stranger = yield* apiClient({ ...other.adminHeaders, "x-tenant-id": String(c.tenant.id) })
      yield* stranger.adminCache.clear({ payload: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      // Nothing was cleared by the refused calls.
      const stats = yield* statsOf(c.adminHeaders)
      assert.strictEqual(stats["config-documents"]!.entries, 1)
    }))
})
