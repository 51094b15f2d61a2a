import { assert, describe, layer } from "@effect/vitest"
import type { AdminCommentsParams, AdminFeedPostsParams } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { comment, commentPath, feedIds, joinGroup, makeGroup, post, postPath, postRow } from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"
import { expect422, expectAdminOnly, moderationCommunity } from "./moderationKit.js"

/** The ids of the post's comments as `who` reads them (first page). */
const commentIds = (who: Actor, post: number) =>
  Effect.map(
    who.client.feed.comments({ ...postPath(post), urlParams: { per_page: 100 } }).pipe(expectOk),
    (page) => page.data.map((c) => c.id as number)
  )

/** The ids an admin list answers, newest first. */
const listed = (admin: Actor, urlParams: AdminFeedPostsParams) =>
  Effect.map(admin.client.adminFeed.list({ urlParams: { per_page: 100, ...urlParams } }).pipe(expectOk), (page) => ({
    ids: page.data.map((p) => p.id as number),
    total: page.meta.total
  }))

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin: feed posts and comments", (it) => {
  describe("posts", () => {
    it.effect("hide: gone from other members' feed and detail at once, its author still sees it; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const kept = yield* post(c.member, "Fine")
        const bad = yield* post(c.member, "Not fine")
        assert.deepStrictEqual(yield* feedIds(c.other), [bad.id, kept.id])

        const hidden = yield* c.admin.client.adminFeed.hide(postPath(bad.id)).pipe(expectOk)
        assert.strictEqual(hidden.data.id, bad.id)
        assert.strictEqual(hidden.data.is_hidden, true)
        assert.strictEqual(hidden.data.body, "Not fine")

        assert.deepStrictEqual(yield* feedIds(c.other), [kept.id])
        yield* c.other.client.feed.get(postPath(bad.id)).pipe(expectError(404, "NOT_FOUND"))
        const own = yield* c.member.client.feed.get(postPath(bad.id)).pipe(expectOk)
        assert.strictEqual(own.data.is_hidden, true)
        assert.deepStrictEqual(yield* feedIds(c.member), [bad.id, kept.id])

        yield* c.admin.client.adminFeed.hide(postPath(bad.id)).pipe(expectError(409, "INVALID_STATE"))
        const log = yield* c.admin.client.adminActivity.log({ urlParams: { action: "feed-post.hidden" } }).pipe(
          expectOk
        )
        assert.deepStrictEqual(log.data.map((e) => e.target_id), [String(bad.id)])
        const detail = yield* c.admin.client.adminFeed.get(postPath(bad.id)).pipe(expectOk)
        assert.strictEqual(detail.data.is_hidden, true)
      }))

    it.effect("delete: gone for everyone, the author too; again → 404", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.member, "Delete me")
        const res = yield* c.admin.client.adminFeed.delete(postPath(p.id)).pipe(expectOk)
        assert.deepStrictEqual(res.data, { id: p.id, deleted: true })
        assert.deepStrictEqual(yield* feedIds(c.member), [])
        yield* c.member.client.feed.get(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminFeed.get(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminFeed.delete(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminFeed.hide(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* postRow(p.id))!.deleted, true)
      }))

    it.effect("list: every post, hidden ones included, newest first; filters author, group, hidden, text, days", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const group = yield* makeGroup(c.member)
        yield* joinGroup(group, c.other)
        const a = yield* post(c.member, "Apples to share")
        const b = yield* post(c.other, "Pears to share")
        const g = yield* post(c.other, "Group only: plums", { group_id: group.id })
        yield* c.admin.client.adminFeed.hide(postPath(b.id)).pipe(expectOk)

        assert.deepStrictEqual(yield* listed(c.admin, {}), { ids: [g.id, b.id, a.id], total: 3 })
        assert.deepStrictEqual((yield* listed(c.admin, { author_id: c.other.id })).ids, [g.id, b.id])
        assert.deepStrictEqual((yield* listed(c.admin, { group_id: group.id })).ids, [g.id])
        assert.deepStrictEqual((yield* listed(c.admin, { is_hidden: true })).ids, [b.id])
        assert.deepStrictEqual((yield* listed(c.admin, { is_hidden: false })).ids, [g.id, a.id])
        assert.deepStrictEqual((yield* listed(c.admin, { search: "PEARS" })).ids, [b.id])
        assert.deepStrictEqual((yield* listed(c.admin, { search: "100%" })).ids, [])
        const today = new Date().toISOString().slice(0, 10)
        assert.deepStrictEqual((yield* listed(c.admin, { from: "2000-01-01", to: "2999-12-31" })).ids, [
          g.id,
          b.id,
          a.id
        ])
        assert.deepStrictEqual((yield* listed(c.admin, { from: "2999-01-01" })).ids, [])
        assert.deepStrictEqual((yield* listed(c.admin, { to: "2000-01-01" })).ids, [])
        assert.strictEqual((yield* listed(c.admin, { from: today, to: today })).total, 3)

        // Offset pages: two per page.
        const first = yield* c.admin.client.adminFeed.list({ urlParams: { per_page: 2 } }).pipe(expectOk)
        assert.deepStrictEqual(first.meta, { current_page: 1, per_page: 2, total: 3, total_pages: 2, has_more: true })
        const second = yield* c.admin.client.adminFeed.list({ urlParams: { per_page: 2, page: 2 } }).pipe(expectOk)
        assert.deepStrictEqual(second.data.map((p) => p.id), [a.id])
        assert.strictEqual(second.meta.has_more, false)
      }))

    it.effect("bad filters are 422 on their field", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const POSTS = "/api/v2/admin/feed/posts"
        yield* expect422(c.admin, "GET", `${POSTS}?is_hidden=maybe`, "is_hidden")
        yield* expect422(c.admin, "GET", `${POSTS}?author_id=abc`, "author_id")
        yield* expect422(c.admin, "GET", `${POSTS}?from=2024-02-30`, "from")
        yield* expect422(c.admin, "GET", `${POSTS}?from=2024-03-02&to=2024-03-01`, "to")
        yield* expect422(c.admin, "GET", `${POSTS}?per_page=101`, "per_page")
        yield* expect422(c.admin, "GET", `/api/v2/admin/comments?post_id=0`, "post_id")
      }))

    it.effect("stats count exactly what the community holds", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const empty = yield* c.admin.client.adminFeed.stats().pipe(expectOk)
        assert.deepStrictEqual(empty.data, {
          posts: 0,
          hidden_posts: 0,
          comments: 0,
          hidden_comments: 0,
          likes: 0,
          posts_last_7_days: 0,
          comments_last_7_days: 0
        })
        const p1 = yield* post(c.member, "One")
        const p2 = yield* post(c.other, "Two")
        const p3 = yield* post(c.other, "Three")
        yield* c.other.client.feed.like(postPath(p1.id)).pipe(expectOk)
        yield* c.admin.client.feed.like(postPath(p1.id)).pipe(expectOk)
        const c1 = yield* comment(c.other, p1.id, "Nice")
        yield* comment(c.member, p1.id, "Thanks")
        const c3 = yield* comment(c.member, p2.id, "Gone soon")
        yield* c.admin.client.adminFeed.hide(postPath(p2.id)).pipe(expectOk)
        yield* c.admin.client.adminComments.hide(commentPath(c1.id)).pipe(expectOk)
        yield* c.admin.client.adminFeed.delete(postPath(p3.id)).pipe(expectOk)
        yield* c.admin.client.adminComments.delete(commentPath(c3.id)).pipe(expectOk)
        const stats = yield* c.admin.client.adminFeed.stats().pipe(expectOk)
        assert.deepStrictEqual(stats.data, {
          posts: 2,
          hidden_posts: 1,
          comments: 2,
          hidden_comments: 1,
          likes: 2,
          posts_last_7_days: 2,
          comments_last_7_days: 2
        })
      }))
  })

  describe("comments", () => {
    it.effect("hide: gone from other members' list at once, its author still sees it; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity({ members: 1 })
        const [third] = c.members
        const p = yield* post(c.member, "Opinions?")
        const kept = yield* comment(c.other, p.id, "Reasonable")
        const bad = yield* comment(c.other, p.id, "Unreasonable")
        assert.deepStrictEqual(yield* commentIds(third!, p.id), [kept.id, bad.id])

        const hidden = yield* c.admin.client.adminComments.hide(commentPath(bad.id)).pipe(expectOk)
        assert.include(hidden.data, { id: bad.id, post_id: p.id, body: "Unreasonable", is_hidden: true })
        assert.deepStrictEqual(yield* commentIds(third!, p.id), [kept.id])
        assert.deepStrictEqual(yield* commentIds(c.member, p.id), [kept.id])
        assert.deepStrictEqual(yield* commentIds(c.other, p.id), [kept.id, bad.id])
        yield* c.admin.client.adminComments.hide(commentPath(bad.id)).pipe(expectError(409, "INVALID_STATE"))
        const detail = yield* c.admin.client.adminComments.get(commentPath(bad.id)).pipe(expectOk)
        assert.strictEqual(detail.data.is_hidden, true)
      }))

    it.effect("list with filters, newest first; delete uncounts it on its post", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p1 = yield* post(c.member, "First")
        const p2 = yield* post(c.member, "Second")
        const a = yield* comment(c.other, p1.id, "a")
        const b = yield* comment(c.member, p1.id, "b")
        const d = yield* comment(c.other, p2.id, "d")
        yield* c.admin.client.adminComments.hide(commentPath(b.id)).pipe(expectOk)
        const ids = (urlParams: AdminCommentsParams) =>
          Effect.map(c.admin.client.adminComments.list({ urlParams }).pipe(expectOk), (page) => ({
            ids: page.data.map((x) => x.id as number),
            total: page.meta.total
          }))
        assert.deepStrictEqual(yield* ids({}), { ids: [d.id, b.id, a.id], total: 3 })
        assert.deepStrictEqual((yield* ids({ post_id: p1.id })).ids, [b.id, a.id])
        assert.deepStrictEqual((yield* ids({ author_id: c.other.id })).ids, [d.id, a.id])
        assert.deepStrictEqual((yield* ids({ is_hidden: true })).ids, [b.id])
        assert.deepStrictEqual((yield* ids({ is_hidden: false, post_id: p1.id })).ids, [a.id])

        assert.strictEqual((yield* postRow(p1.id))!.comment_count, 2)
        const res = yield* c.admin.client.adminComments.delete(commentPath(a.id)).pipe(expectOk)
        assert.deepStrictEqual(res.data, { id: a.id, deleted: true })
        assert.strictEqual((yield* postRow(p1.id))!.comment_count, 1)
        assert.deepStrictEqual(yield* commentIds(c.other, p1.id), [])
        assert.deepStrictEqual((yield* ids({})).ids, [d.id, b.id])
        yield* c.admin.client.adminComments.delete(commentPath(a.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminComments.get(commentPath(a.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* postRow(p1.id))!.comment_count, 1)
      }))
  })

  describe("access", () => {
    it.effect("no token 401; member, broker, coordinator 403 on every route, and nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.member, "Mine")
        const k = yield* comment(c.other, p.id, "Yours")
        yield* expectAdminOnly(c, [
          (client) => client.adminFeed.list({ urlParams: {} }),
          (client) => client.adminFeed.stats(),
          (client) => client.adminFeed.get(postPath(p.id)),
          (client) => client.adminFeed.hide(postPath(p.id)),
          (client) => client.adminFeed.delete(postPath(p.id)),
          (client) => client.adminComments.list({ urlParams: {} }),
          (client) => client.adminComments.get(commentPath(k.id)),
          (client) => client.adminComments.hide(commentPath(k.id)),
          (client) => client.adminComments.delete(commentPath(k.id))
        ])
        assert.deepStrictEqual(yield* feedIds(c.other), [p.id])
        assert.deepStrictEqual(yield* commentIds(c.member, p.id), [k.id])
      }))

    it.effect("another community's posts and comments are 404 and stay as they were", () =>
      Effect.gen(function*() {
        const a = yield* moderationCommunity()
        const b = yield* moderationCommunity()
        const p = yield* post(b.member, "B's post")
        const k = yield* comment(b.other, p.id, "B's comment")
        yield* a.admin.client.adminFeed.get(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminFeed.hide(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminFeed.delete(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminComments.get(commentPath(k.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminComments.hide(commentPath(k.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminComments.delete(commentPath(k.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual((yield* listed(a.admin, {})).ids, [])
        assert.deepStrictEqual((yield* listed(a.admin, { author_id: b.member.id })).ids, [])
        const stats = yield* a.admin.client.adminFeed.stats().pipe(expectOk)
        assert.strictEqual(stats.data.posts, 0)
        assert.deepStrictEqual(yield* feedIds(b.other), [p.id])
        assert.deepStrictEqual(yield* commentIds(b.member, p.id), [k.id])
      }))
  })
})
