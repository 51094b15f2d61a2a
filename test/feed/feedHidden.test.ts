import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectOk } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import {
  comment,
  commentPath,
  feedIds,
  hideComment,
  hidePost,
  joinGroup,
  makeGroup,
  post,
  postPath
} from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feed: hidden posts and comments", (it) => {
  describe("hidden posts", () => {
    it.effect("the author and admins see them marked is_hidden (list and detail); others 404 and never in lists", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const group = yield* makeGroup(member)
        yield* joinGroup(group, other)
        const visible = yield* post(member, "Fine")
        const hidden = yield* post(member, "Not fine")
        const hiddenInGroup = yield* post(member, "Not fine either", { group_id: group.id })
        yield* hidePost(hidden.id)
        yield* hidePost(hiddenInGroup.id)

        for (const who of [member, admin]) {
          const detail = yield* who.client.feed.get(postPath(hidden.id)).pipe(expectOk)
          assert.strictEqual(detail.data.is_hidden, true)
          const page = yield* who.client.feed.list({ urlParams: {} }).pipe(expectOk)
          const shown = page.data.find((p) => p.id === hidden.id)
          assert.strictEqual(shown?.is_hidden, true)
          assert.strictEqual(page.data.find((p) => p.id === visible.id)?.is_hidden, false)
        }
        assert.deepStrictEqual(yield* feedIds(member), [hiddenInGroup.id, hidden.id, visible.id])
        assert.deepStrictEqual(yield* feedIds(admin, group.id), [hiddenInGroup.id])

        yield* other.client.feed.get(postPath(hidden.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* other.client.feed.get(postPath(hiddenInGroup.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(yield* feedIds(other), [visible.id])
        assert.deepStrictEqual(yield* feedIds(other, group.id), [])
        // Nor can they comment on it, read its comments or delete it.
        yield* other.client.feed.comment({ ...postPath(hidden.id), payload: { body: "Hm" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* other.client.feed.comments({ ...postPath(hidden.id), urlParams: {} }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* other.client.feed.delete(postPath(hidden.id)).pipe(expectError(404, "NOT_FOUND"))
        // Hidden posts take no comments, not even from their author or an admin; an admin may delete one.
        yield* member.client.feed.comment({ ...postPath(hidden.id), payload: { body: "Why?" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.strictEqual((yield* admin.client.feed.delete(postPath(hidden.id)).pipe(expectOk)).data.deleted, true)
        yield* member.client.feed.get(postPath(hidden.id)).pipe(expectError(404, "NOT_FOUND"))
      }))
  })

  describe("hidden comments", () => {
    it.effect("their author and admins see them marked; others never see them and get 404 deleting them", () =>
      Effect.gen(function*() {
        const { admin, member, members, other } = yield* community({ members: 1, signIn: "token" })
        const [third] = members
        const p = yield* post(member, "Opinions?")
        const kept = yield* comment(other, p.id, "Reasonable")
        const hidden = yield* comment(other, p.id, "Unreasonable")
        yield* hideComment(hidden.id)

        const idsFor = (who: Actor) =>
          Effect.map(
            who.client.feed.comments({ ...postPath(p.id), urlParams: {} }).pipe(expectOk),
            (page) => page.data.map((c) => [c.id, c.is_hidden] as const)
          )
        assert.deepStrictEqual(yield* idsFor(other), [[kept.id, false], [hidden.id, true]])
        assert.deepStrictEqual(yield* idsFor(admin), [[kept.id, false], [hidden.id, true]])
        // The post's author is no moderator: they see what everyone sees.
        assert.deepStrictEqual(yield* idsFor(member), [[kept.id, false]])
        assert.deepStrictEqual(yield* idsFor(third!), [[kept.id, false]])
        yield* member.client.feed.deleteComment(commentPath(hidden.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual(
          (yield* other.client.feed.deleteComment(commentPath(hidden.id)).pipe(expectOk)).data.deleted,
          true
        )
        assert.deepStrictEqual(yield* idsFor(admin), [[kept.id, false]])
      }))
  })
})
