import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fieldsOf } from "../../fixtures/bodies.js"
import { expectError, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { rawCall } from "../../fixtures/events.js"
import { makeGroup, setGroupStatus } from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { adminGroup, assertIds, gid } from "./adminGroupsKit.js"

const UPDATE = "/api/v2/admin/groups/featured/update"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin featured groups", (it) => {
  describe("toggle-featured", () => {
    it.effect("features an active group last, unfeatures a featured one; the lists follow", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const [a, b] = [yield* makeGroup(c.member), yield* makeGroup(c.other)]
        const toggle = (id: number) =>
          c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(id) } }).pipe(expectOk)
        const on = yield* toggle(b.id)
        assert.isTrue(on.data.is_featured)
        assert.isNotNull(on.data.featured_at)
        yield* toggle(a.id)
        const featured = yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk)
        assertIds(featured, [b, a])
        assert.deepStrictEqual(featured.meta, {
          current_page: 1,
          per_page: 20,
          total: 2,
          total_pages: 1,
          has_more: false
        })

        const off = yield* toggle(b.id)
        assert.isFalse(off.data.is_featured)
        assert.isNull(off.data.featured_at)
        assertIds(yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk), [a])
        assert.isFalse((yield* adminGroup(c.admin, b.id)).is_featured)
        // Featured again: now after `a`.
        yield* toggle(b.id)
        assertIds(yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk), [a, b])
      }))

    it.effect("a group that is not active cannot be featured (409 INVALID_STATE); a featured one can always stop", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const group = yield* makeGroup(c.member)
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(group.id) } }).pipe(expectOk)
        yield* setGroupStatus(group, "archived")
        for (const status of ["pending_review", "dormant", "archived", "rejected"] as const) {
          const other = yield* makeGroup(c.other)
          yield* setGroupStatus(other, status)
          const failure = yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(other.id) } }).pipe(
            expectError(409, "INVALID_STATE")
          )
          assert.include(failure.message, status)
          assert.isFalse((yield* adminGroup(c.admin, other.id)).is_featured)
        }
        const off = yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(group.id) } }).pipe(expectOk)
        assert.isFalse(off.data.is_featured)
      }))
  })

  describe("featured/update", () => {
    it.effect("sets exactly the featured set, in the order given; an empty list features none", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const [a, b, d, e] = [
          yield* makeGroup(c.member),
          yield* makeGroup(c.member),
          yield* makeGroup(c.other),
          yield* makeGroup(c.other)
        ]
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(a.id) } }).pipe(expectOk)
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(e.id) } }).pipe(expectOk)

        const set = (ids: ReadonlyArray<number>) =>
          c.admin.client.adminGroups.updateFeatured({ payload: { group_ids: ids } }).pipe(expectOk)
        const res = yield* set([d.id, a.id, b.id, d.id])
        assert.deepStrictEqual(res.data.map((g) => [g.id, g.is_featured]), [[d.id, true], [a.id, true], [b.id, true]])
        assertIds(yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk), [d, a, b])
        assert.isFalse((yield* adminGroup(c.admin, e.id)).is_featured)
        const listed = yield* c.admin.client.adminGroups.list({ urlParams: { featured: true } }).pipe(expectOk)
        assert.deepStrictEqual(listed.data.map((g) => g.id).sort(), [a.id, b.id, d.id].sort())

        yield* set([b.id])
        assertIds(yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk), [b])
        assert.deepStrictEqual((yield* set([])).data, [])
        assert.strictEqual((yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk)).meta.total, 0)
      }))

    it.effect("another community's group, a deleted, unknown or inactive one → 422 group_ids.<i>; nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const mine = yield* makeGroup(c.member)
        const kept = yield* makeGroup(c.member)
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(kept.id) } }).pipe(expectOk)
        const foreign = yield* makeGroup(elsewhere.member)
        const gone = yield* makeGroup(c.member)
        yield* c.admin.client.adminGroups.delete({ path: { id: gid(gone.id) } }).pipe(expectOk)
        const archived = yield* makeGroup(c.member)
        yield* setGroupStatus(archived, "archived")

        const res = yield* rawCall("POST", UPDATE, c.admin.headers, {
          group_ids: [mine.id, foreign.id, gone.id, 999999999, archived.id]
        })
        assert.strictEqual(res.status, 422, res.text)
        assert.deepStrictEqual(fieldsOf(res.body), ["group_ids.1", "group_ids.2", "group_ids.3", "group_ids.4"])
        for (
          const [body, field] of [[{}, "group_ids"], [{ group_ids: ["x"] }, "group_ids.0"], [
            { group_ids: [0] },
            "group_ids.0"
          ]] as const
        ) {
          const bad = yield* rawCall("POST", UPDATE, c.admin.headers, body)
          assert.strictEqual(bad.status, 422, bad.text)
          assert.deepStrictEqual(fieldsOf(bad.body), [field])
        }
        assertIds(yield* c.admin.client.adminGroups.featured({ urlParams: {} }).pipe(expectOk), [kept])
        assert.isFalse((yield* adminGroup(elsewhere.admin, foreign.id)).is_featured)
      }))
  })
})
