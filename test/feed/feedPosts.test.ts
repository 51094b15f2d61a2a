import { assert, describe, layer } from "@effect/vitest"
import { RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { apiClient, asJson, expectError, expectOk, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { deleteGroup, feedIds, joinGroup, makeGroup, post, postPath, postRow } from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

const POSTS = "/api/v2/feed/posts"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feed posts", (it) => {
  describe("create", () => {
    it.effect("POST writes a trimmed post (201) and FeedPostCreated; detail and feed read it back", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community()
        // Raw: untrimmed text, which the client does not send, and the exact body on the wire.
        const res = yield* rawCall("POST", POSTS, member.headers, {
          body: "  Spare apples at number 12 🍎  ",
          image_url: " https://example.org/apples.jpg "
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<{ id: number; created_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            author: { id: member.id, first_name: "Mia", last_name: "Member", avatar_url: null },
            body: "Spare apples at number 12 🍎",
            image_url: "https://example.org/apples.jpg",
            group_id: null,
            kind: "post",
            activity: null,
            like_count: 0,
            comment_count: 0,
            liked_by_me: false,
            is_hidden: false,
            created_at: created.created_at
          },
          meta: {}
        })
        assert.match(created.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        assert.deepStrictEqual(yield* outboxOf(tenant, "FeedPostCreated"), [{
          post_id: created.id,
          user_id: member.id,
          group_id: null
        }])

        const got = yield* other.client.feed.get(postPath(created.id))
        assert.strictEqual(got.data.body, "Spare apples at number 12 🍎")
        assert.strictEqual(got.data.author.id, member.id)
        assert.deepStrictEqual(yield* feedIds(other), [created.id])
      }))

    it.effect("bad input is a 422 naming the field; 5000 code points (emoji) are the limit; nothing is written", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const cases: Array<[unknown, Array<string>]> = [
          [{ body: "" }, ["body"]],
          [{ body: "   \n\t " }, ["body"]],
          [{}, ["body"]],
          [{ body: 7 }, ["body"]],
          [{ body: "x".repeat(5001) }, ["body"]],
          [{ body: "🍎".repeat(5001) }, ["body"]],
          [{ body: "Hi", image_url: "ftp://example.org/a.jpg" }, ["image_url"]],
          [{ body: "Hi", image_url: "not a url" }, ["image_url"]],
          [{ body: "Hi", image_url: `https://example.org/${"a".repeat(1990)}` }, ["image_url"]],
          [{ body: "Hi", group_id: 0 }, ["group_id"]],
          [{ body: "Hi", group_id: "x" }, ["group_id"]]
        ]
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", POSTS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), fields, JSON.stringify(body).slice(0, 80))
        }
        assert.deepStrictEqual(yield* outboxOf(tenant, "FeedPostCreated"), [])

        // 5000 emoji are 10000 UTF-16 units but 5000 code points: accepted, as is a 2000-character URL.
        const longest = yield* post(member, "🍎".repeat(5000), {
          image_url: `https://example.org/${"a".repeat(1980)}`
        })
        assert.strictEqual([...longest.body].length, 5000)
        assert.strictEqual(longest.image_url?.length, 2000)
      }))

    it.effect("anonymous → 401; a super-admin visiting → 403; feed off → 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { tenant, visitor } = yield* community()
        const payload = { body: "Hello" }
        yield* visitor.client.feed.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.feed.create({ payload }).pipe(expectError(403, "FORBIDDEN"))

        const off = yield* community({ features: { feed: false } })
        yield* off.member.client.feed.create({ payload }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* off.member.client.feed.list({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* outboxOf(tenant, "FeedPostCreated"), [])
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "FeedPostCreated"), [])
      }))

    it.effect("in a group: active members post (201); others 403; unknown, deleted or foreign group → 422", () =>
      Effect.gen(function*() {
        const { admin, member, members, other, tenant } = yield* community({ members: 2, signIn: "token" })
        const [pending, banned] = members
        const group = yield* makeGroup(member)
        yield* joinGroup(group, pending!, { status: "pending" })
        yield* joinGroup(group, banned!, { status: "banned" })

        const inGroup = yield* post(member, "Group walk on Sunday", { group_id: group.id })
        assert.strictEqual(inGroup.group_id, group.id)
        assert.deepStrictEqual(yield* outboxOf(tenant, "FeedPostCreated"), [{
          post_id: inGroup.id,
          user_id: member.id,
          group_id: group.id
        }])
        assert.deepStrictEqual(yield* feedIds(other, group.id), [inGroup.id])

        // Not a member, a pending or banned one, or an admin without a membership: 403.
        for (const who of [other, pending!, banned!, admin]) {
          yield* who.client.feed.create({ payload: { body: "Me too", group_id: group.id } }).pipe(
            expectError(403, "FORBIDDEN")
          )
        }

        // Archived groups take no new posts.
        const archived = yield* makeGroup(member, { status: "archived" })
        yield* member.client.feed.create({ payload: { body: "Anyone?", group_id: archived.id } }).pipe(
          expectError(403, "FORBIDDEN")
        )

        // An unknown group, a deleted one and another community's all read the same: 422 on group_id.
        const elsewhere = yield* community({ signIn: "token" })
        const foreign = yield* makeGroup(elsewhere.member)
        const gone = yield* makeGroup(member)
        yield* deleteGroup(gone)
        for (const groupId of [foreign.id, gone.id, 999_999_999]) {
          const failure = yield* member.client.feed.create({ payload: { body: "Hi", group_id: groupId } }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.deepStrictEqual(failure.fields, ["group_id"])
        }
        assert.strictEqual((yield* outboxOf(tenant, "FeedPostCreated")).length, 1)
      }))
  })

  describe("list", () => {
    it.effect("newest first in cursor pages: community posts and the caller's groups', never other tenants'", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        yield* post(elsewhere.member, "Not here")
        const publicGroup = yield* makeGroup(member)
        const privateGroup = yield* makeGroup(member, { visibility: "private" })

        const first = yield* post(member, "First")
        const inPublic = yield* post(member, "In the public group", { group_id: publicGroup.id })
        const second = yield* post(other, "Second")
        const inPrivate = yield* post(member, "In the private group", { group_id: privateGroup.id })
        const third = yield* post(admin, "Third")

        // The member sees their groups' posts in the home feed; the others see the community's only.
        assert.deepStrictEqual(yield* feedIds(member), [third.id, inPrivate.id, second.id, inPublic.id, first.id])
        assert.deepStrictEqual(yield* feedIds(other), [third.id, second.id, first.id])
        assert.deepStrictEqual(yield* feedIds(admin), [third.id, second.id, first.id])
        yield* joinGroup(publicGroup, other)
        assert.deepStrictEqual(yield* feedIds(other), [third.id, second.id, inPublic.id, first.id])

        // Pages of two, the cursor passed back, the last page without one.
        const page1 = yield* member.client.feed.list({ urlParams: { per_page: 2 } }).pipe(expectOk)
        assert.deepStrictEqual(page1.data.map((p) => p.id), [third.id, inPrivate.id])
        assert.strictEqual(page1.meta.has_more, true)
        const page2 = yield* member.client.feed.list({
          urlParams: { per_page: 2, cursor: pageCursor(RecordId, page1.meta.cursor!) }
        }).pipe(expectOk)
        assert.deepStrictEqual(page2.data.map((p) => p.id), [second.id, inPublic.id])
        const page3 = yield* member.client.feed.list({
          urlParams: { per_page: 2, cursor: pageCursor(RecordId, page2.meta.cursor!) }
        }).pipe(expectOk)
        assert.deepStrictEqual(page3.data.map((p) => p.id), [first.id])
        assert.deepStrictEqual(page3.meta, { per_page: 2, has_more: false })
        assert.deepStrictEqual(asJson(page1.data[0]!.author), {
          id: admin.id,
          first_name: "Ada",
          last_name: "Admin",
          avatar_url: null
        })
      }))

    it.effect("group_id: that group's posts; private needs a membership or an admin (403); unknown → 404", () =>
      Effect.gen(function*() {
        const { admin, member, members, other } = yield* community({ members: 1, signIn: "token" })
        const [pending] = members
        const elsewhere = yield* community({ signIn: "token" })
        const foreign = yield* makeGroup(elsewhere.member)
        yield* post(elsewhere.member, "Theirs", { group_id: foreign.id })
        const privateGroup = yield* makeGroup(member, { visibility: "private" })
        yield* joinGroup(privateGroup, pending!, { status: "pending" })
        const publicGroup = yield* makeGroup(other)
        yield* post(member, "Community-wide")
        const privatePost = yield* post(member, "Members only", { group_id: privateGroup.id })
        const publicPost = yield* post(other, "Open to all", { group_id: publicGroup.id })

        assert.deepStrictEqual(yield* feedIds(member, privateGroup.id), [privatePost.id])
        assert.deepStrictEqual(yield* feedIds(admin, privateGroup.id), [privatePost.id])
        assert.deepStrictEqual(yield* feedIds(member, publicGroup.id), [publicPost.id])
        for (const who of [other, pending!]) {
          yield* who.client.feed.list({ urlParams: { group_id: privateGroup.id } }).pipe(expectError(403, "FORBIDDEN"))
        }
        // Another community's group, a deleted one and an unknown id are all not found.
        const gone = yield* makeGroup(member)
        yield* deleteGroup(gone)
        for (const groupId of [foreign.id, gone.id, 999_999_999]) {
          yield* member.client.feed.list({ urlParams: { group_id: groupId } }).pipe(expectError(404, "NOT_FOUND"))
        }
      }))

    it.effect("bad parameters → 422 with the field; anonymous → 401", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community({ signIn: "token" })
        // Raw: parameters the typed client cannot send.
        for (
          const [query, field] of [
            ["cursor=!!!", "cursor"],
            ["cursor=abc", "cursor"],
            ["group_id=abc", "group_id"],
            ["group_id=0", "group_id"],
            ["per_page=0", "per_page"],
            ["per_page=101", "per_page"]
          ] as const
        ) {
          const res = yield* rawCall("GET", `/api/v2/feed?${query}`, member.headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), [field], query)
        }
        yield* visitor.client.feed.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("detail and delete", () => {
    it.effect("GET: any member; another tenant's, unknown and bad ids → 404; a private group's → members, admins", () =>
      Effect.gen(function*() {
        const { admin, member, other, visitor } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const theirs = yield* post(elsewhere.member, "Theirs")
        const privateGroup = yield* makeGroup(member, { visibility: "private" })
        const secret = yield* post(member, "Members only", { group_id: privateGroup.id })

        yield* member.client.feed.get(postPath(theirs.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* member.client.feed.get(postPath(999_999_999)).pipe(expectError(404, "NOT_FOUND"))
        for (const bad of ["abc", "0", "-1", "1.5"]) {
          const res = yield* rawCall("GET", `${POSTS}/${bad}`, member.headers)
          assert.strictEqual(res.status, 404, `${bad}: ${res.text}`)
        }
        yield* other.client.feed.get(postPath(secret.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* admin.client.feed.get(postPath(secret.id))).data.id, secret.id)
        yield* joinGroup(privateGroup, other)
        assert.strictEqual((yield* other.client.feed.get(postPath(secret.id))).data.body, "Members only")
        yield* visitor.client.feed.get(postPath(secret.id)).pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("DELETE by the author or an admin → {id, deleted}; then 404 and gone from the feed; others 403", () =>
      Effect.gen(function*() {
        const { admin, member, other, visitor } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const mine = yield* post(member, "Mine")
        const another = yield* post(member, "Another")
        const theirs = yield* post(elsewhere.member, "Theirs")

        yield* other.client.feed.delete(postPath(mine.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* visitor.client.feed.delete(postPath(mine.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* admin.client.feed.delete(postPath(theirs.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* postRow(theirs.id))!.deleted, false)

        assert.deepStrictEqual((yield* member.client.feed.delete(postPath(mine.id))).data, {
          id: mine.id,
          deleted: true
        })
        assert.deepStrictEqual((yield* admin.client.feed.delete(postPath(another.id))).data, {
          id: another.id,
          deleted: true
        })
        yield* member.client.feed.get(postPath(mine.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* member.client.feed.delete(postPath(mine.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(yield* feedIds(other), [])
        assert.strictEqual((yield* postRow(another.id))!.deleted, true)
      }))

    it.effect("a group's organisers delete posts in their group, not elsewhere; plain members may not", () =>
      Effect.gen(function*() {
        const { member, members, other } = yield* community({ members: 2, signIn: "token" })
        const [organiser, plain] = members
        const group = yield* makeGroup(member)
        const otherGroup = yield* makeGroup(member)
        yield* joinGroup(group, organiser!, { role: "organiser" })
        yield* joinGroup(group, plain!)
        yield* joinGroup(group, other)
        yield* joinGroup(otherGroup, other)
        const inGroup = yield* post(other, "In the group", { group_id: group.id })
        const inOtherGroup = yield* post(other, "In the other group", { group_id: otherGroup.id })
        const outside = yield* post(other, "Community-wide")

        yield* plain!.client.feed.delete(postPath(inGroup.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* organiser!.client.feed.delete(postPath(outside.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* organiser!.client.feed.delete(postPath(inOtherGroup.id)).pipe(expectError(403, "FORBIDDEN"))
        assert.deepStrictEqual((yield* organiser!.client.feed.delete(postPath(inGroup.id))).data, {
          id: inGroup.id,
          deleted: true
        })
        // The owner is an organiser too.
        assert.strictEqual((yield* member.client.feed.delete(postPath(inOtherGroup.id))).data.deleted, true)
        assert.deepStrictEqual(yield* feedIds(other), [outside.id])
      }))
  })
})
