import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { hidePost, joinGroup, makeGroup, post, postPath, postRow } from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feed likes", (it) => {
  describe("like and unlike", () => {
    it.effect("idempotent both ways; like_count and liked_by_me follow, in the detail and the feed", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const p = yield* post(other, "Lawnmower to lend")
        const likeOf = (who: typeof member) => who.client.feed.like(postPath(p.id))
        const unlikeOf = (who: typeof member) => who.client.feed.unlike(postPath(p.id))

        assert.deepStrictEqual((yield* likeOf(member)).data, { post_id: p.id, liked: true, like_count: 1 })
        assert.deepStrictEqual((yield* likeOf(member)).data, { post_id: p.id, liked: true, like_count: 1 })
        assert.deepStrictEqual((yield* likeOf(admin)).data, { post_id: p.id, liked: true, like_count: 2 })

        const asMember = yield* member.client.feed.get(postPath(p.id))
        assert.strictEqual(asMember.data.like_count, 2)
        assert.strictEqual(asMember.data.liked_by_me, true)
        const asAuthor = yield* other.client.feed.get(postPath(p.id))
        assert.strictEqual(asAuthor.data.liked_by_me, false)
        const feed = yield* member.client.feed.list({ urlParams: {} })
        assert.deepStrictEqual(feed.data.map((x) => [x.id, x.like_count, x.liked_by_me]), [[p.id, 2, true]])

        assert.deepStrictEqual((yield* unlikeOf(member)).data, { post_id: p.id, liked: false, like_count: 1 })
        assert.deepStrictEqual((yield* unlikeOf(member)).data, { post_id: p.id, liked: false, like_count: 1 })
        assert.deepStrictEqual((yield* unlikeOf(other)).data, { post_id: p.id, liked: false, like_count: 1 })
        assert.strictEqual((yield* member.client.feed.get(postPath(p.id))).data.liked_by_me, false)
        assert.deepStrictEqual(yield* postRow(p.id), { like_count: 1, comment_count: 0, deleted: false, likes: "1" })
      }))

    it.effect("concurrent likes and unlikes keep the count equal to the likes stored", () =>
      Effect.gen(function*() {
        const c = yield* community({ members: 6, signIn: "token" })
        const p = yield* post(c.member, "Race me")
        // Every member likes three times at once; then half of them unlike twice at once.
        yield* Effect.forEach(
          c.members.flatMap((m) => [m, m, m]),
          (m) => m.client.feed.like(postPath(p.id)),
          { concurrency: "unbounded", discard: true }
        )
        assert.deepStrictEqual(yield* postRow(p.id), { like_count: 6, comment_count: 0, deleted: false, likes: "6" })
        yield* Effect.forEach(
          c.members.slice(0, 3).flatMap((m) => [m, m]),
          (m) => m.client.feed.unlike(postPath(p.id)),
          { concurrency: "unbounded", discard: true }
        )
        assert.deepStrictEqual(yield* postRow(p.id), { like_count: 3, comment_count: 0, deleted: false, likes: "3" })
        assert.strictEqual((yield* c.member.client.feed.get(postPath(p.id))).data.like_count, 3)
      }))

    it.effect("401; another tenant's or a deleted post → 404; a group's post needs its membership (403)", () =>
      Effect.gen(function*() {
        const { member, other, tenant, visitor } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const theirs = yield* post(elsewhere.member, "Theirs")
        const p = yield* post(member, "Mine")
        yield* visitor.client.feed.like(postPath(p.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.feed.unlike(postPath(p.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* member.client.feed.like(postPath(theirs.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* member.client.feed.unlike(postPath(theirs.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* postRow(theirs.id))!.like_count, 0)

        // A platform super-admin visiting reads but does not like.
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.feed.like(postPath(p.id)).pipe(expectError(403, "FORBIDDEN"))

        const group = yield* makeGroup(member)
        const inGroup = yield* post(member, "Group news", { group_id: group.id })
        yield* other.client.feed.like(postPath(inGroup.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* joinGroup(group, other)
        assert.strictEqual((yield* other.client.feed.like(postPath(inGroup.id))).data.like_count, 1)

        yield* member.client.feed.delete(postPath(p.id)).pipe(expectOk)
        yield* other.client.feed.like(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* member.client.feed.unlike(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("a hidden post takes no likes: 404 for others, 403 for its author and admins", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const p = yield* post(member, "Soon hidden")
        yield* hidePost(p.id)
        yield* other.client.feed.like(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* member.client.feed.like(postPath(p.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* admin.client.feed.like(postPath(p.id)).pipe(expectError(403, "FORBIDDEN"))
        assert.strictEqual((yield* postRow(p.id))!.like_count, 0)
      }))
  })
})
