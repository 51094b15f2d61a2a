import { assert, describe, layer } from "@effect/vitest"
import { RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { expectError, expectOk, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { comment, commentPath, joinGroup, makeGroup, post, postPath, postRow } from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"

const commentsOf = (postId: number) => `/api/v2/feed/posts/${postId}/comments`

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feed comments", (it) => {
  describe("write and read", () => {
    it.effect("POST comments (201, trimmed), counts them, raises FeedCommentCreated; the list is oldest first", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community({ signIn: "token" })
        const p = yield* post(member, "Who has a ladder?")
        // Raw: untrimmed text and the exact body on the wire.
        const res = yield* rawCall("POST", commentsOf(p.id), other.headers, { body: "  I do, come by 🪜 " })
        assert.strictEqual(res.status, 201, res.text)
        const first = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: first.id,
            post_id: p.id,
            author: { id: other.id, first_name: "Otto", last_name: "Other", avatar_url: null },
            body: "I do, come by 🪜",
            is_hidden: false,
            created_at: first.created_at
          },
          meta: {}
        })
        assert.deepStrictEqual(yield* outboxOf(tenant, "FeedCommentCreated"), [{
          comment_id: first.id,
          post_id: p.id,
          post_author_id: member.id,
          user_id: other.id,
          group_id: null
        }])
        const second = yield* comment(admin, p.id, "Me too")
        const third = yield* comment(member, p.id, "Thanks both")

        assert.strictEqual((yield* member.client.feed.get(postPath(p.id))).data.comment_count, 3)
        const page1 = yield* other.client.feed.comments({ ...postPath(p.id), urlParams: { per_page: 2 } }).pipe(
          expectOk
        )
        assert.deepStrictEqual(page1.data.map((c) => [c.id, c.author.first_name, c.body]), [
          [first.id, "Otto", "I do, come by 🪜"],
          [second.id, "Ada", "Me too"]
        ])
        assert.strictEqual(page1.meta.has_more, true)
        const page2 = yield* other.client.feed.comments({
          ...postPath(p.id),
          urlParams: { per_page: 2, cursor: pageCursor(RecordId, page1.meta.cursor!) }
        }).pipe(expectOk)
        assert.deepStrictEqual(page2.data.map((c) => c.id), [third.id])
        assert.deepStrictEqual(page2.meta, { per_page: 2, has_more: false })
      }))

    it.effect("422 blank or too long (2000 code points); 401; another tenant's post 404; group post needs membership", () =>
      Effect.gen(function*() {
        const { member, other, visitor } = yield* community({ signIn: "token" })
        const p = yield* post(member, "Ask me anything")
        // Raw: bodies the client's schemas would refuse to send.
        for (const body of [{ body: "" }, { body: "  " }, {}, { body: "x".repeat(2001) }]) {
          const res = yield* rawCall("POST", commentsOf(p.id), other.headers, body)
          assert.strictEqual(res.status, 422, res.text)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), ["body"])
        }
        assert.strictEqual((yield* comment(other, p.id, "é".repeat(2000))).body.length, 2000)
        yield* visitor.client.feed.comment({ ...postPath(p.id), payload: { body: "Hi" } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
        yield* visitor.client.feed.comments({ ...postPath(p.id), urlParams: {} }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )

        const elsewhere = yield* community({ signIn: "token" })
        const theirs = yield* post(elsewhere.member, "Theirs")
        yield* member.client.feed.comment({ ...postPath(theirs.id), payload: { body: "Hi" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* member.client.feed.comments({ ...postPath(theirs.id), urlParams: {} }).pipe(
          expectError(404, "NOT_FOUND")
        )

        const group = yield* makeGroup(member)
        const inGroup = yield* post(member, "Group only", { group_id: group.id })
        yield* other.client.feed.comment({ ...postPath(inGroup.id), payload: { body: "Hi" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        yield* joinGroup(group, other)
        yield* comment(other, inGroup.id, "Joined!")
        assert.deepStrictEqual(yield* postRow(p.id), { like_count: 0, comment_count: 1, deleted: false, likes: "0" })
        assert.strictEqual((yield* postRow(inGroup.id))!.comment_count, 1)
        assert.strictEqual((yield* postRow(theirs.id))!.comment_count, 0)

        const off = yield* community({ features: { feed: false }, signIn: "token" })
        yield* off.member.client.feed.comment({ ...postPath(p.id), payload: { body: "Hi" } }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
      }))
  })

  describe("delete", () => {
    it.effect("by its author, an admin or the group's organisers → {id, deleted}, uncounted once; others 403", () =>
      Effect.gen(function*() {
        const { admin, member, members, other, visitor } = yield* community({ members: 2, signIn: "token" })
        const [organiser, plain] = members
        const p = yield* post(member, "Plain post")
        const byOther = yield* comment(other, p.id, "First")
        const byOther2 = yield* comment(other, p.id, "Second")

        // The post's author is not a moderator of the comments under it.
        yield* member.client.feed.deleteComment(commentPath(byOther.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* visitor.client.feed.deleteComment(commentPath(byOther.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        assert.deepStrictEqual((yield* other.client.feed.deleteComment(commentPath(byOther.id))).data, {
          id: byOther.id,
          deleted: true
        })
        yield* other.client.feed.deleteComment(commentPath(byOther.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* admin.client.feed.deleteComment(commentPath(byOther2.id))).data.deleted, true)
        assert.strictEqual((yield* postRow(p.id))!.comment_count, 0)
        const left = yield* member.client.feed.comments({ ...postPath(p.id), urlParams: {} })
        assert.deepStrictEqual(left.data, [])

        const group = yield* makeGroup(member)
        yield* joinGroup(group, organiser!, { role: "organiser" })
        yield* joinGroup(group, plain!)
        const inGroup = yield* post(plain!, "In the group", { group_id: group.id })
        const c1 = yield* comment(plain!, inGroup.id, "Bump")
        const outside = yield* comment(plain!, p.id, "Outside the group")
        yield* organiser!.client.feed.deleteComment(commentPath(outside.id)).pipe(expectError(403, "FORBIDDEN"))
        assert.strictEqual((yield* organiser!.client.feed.deleteComment(commentPath(c1.id))).data.deleted, true)
        assert.strictEqual((yield* postRow(inGroup.id))!.comment_count, 0)
        assert.strictEqual((yield* postRow(p.id))!.comment_count, 1)

        // Another community's comment, unknown and bad ids: 404.
        const elsewhere = yield* community({ signIn: "token" })
        const theirPost = yield* post(elsewhere.member, "Theirs")
        const theirs = yield* comment(elsewhere.other, theirPost.id, "Theirs")
        yield* admin.client.feed.deleteComment(commentPath(theirs.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.client.feed.deleteComment(commentPath(999_999_999)).pipe(expectError(404, "NOT_FOUND"))
        const bad = yield* rawCall("DELETE", "/api/v2/comments/abc", admin.headers)
        assert.strictEqual(bad.status, 404, bad.text)
        assert.strictEqual((yield* postRow(theirPost.id))!.comment_count, 1)
      }))

    it.effect("comments of a deleted post are gone with it (404)", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const p = yield* post(member, "Short-lived")
        const c = yield* comment(other, p.id, "Quick")
        yield* member.client.feed.delete(postPath(p.id)).pipe(expectOk)
        yield* other.client.feed.comments({ ...postPath(p.id), urlParams: {} }).pipe(expectError(404, "NOT_FOUND"))
        yield* other.client.feed.deleteComment(commentPath(c.id)).pipe(expectError(404, "NOT_FOUND"))
      }))
  })
})
