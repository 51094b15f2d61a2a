import { assert, describe, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { fieldsOf } from "../../fixtures/bodies.js"
import { asJson, expectError, expectOk } from "../../fixtures/client.js"
import { actor, community } from "../../fixtures/community.js"
import { outboxOf, rawCall } from "../../fixtures/events.js"
import {
  join,
  makeGroup,
  makeGroupType,
  readGroup,
  setGroupStatus,
  setMember,
  uniqueName
} from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { makeSuperAdmin } from "../../fixtures/users.js"
import { adminGroup, assertIds, bellsAbout, expectAdminOnly, gid, memberListIds } from "./adminGroupsKit.js"

const ADMIN_GROUPS = "/api/v2/admin/groups"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin groups", (it) => {
  describe("GET /admin/groups", () => {
    it.effect("lists every status of this community newest first, with each filter and offset pages", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const type = yield* makeGroupType(c.tenant)
        const typed = yield* makeGroup(c.member, { type_id: type.id, location: "Leeds" })
        const knitting = yield* makeGroup(c.other, { visibility: "private", name: uniqueName("Knitting") })
        const archived = yield* makeGroup(c.member)
        yield* setGroupStatus(archived, "archived")
        const pending = yield* makeGroup(c.other)
        yield* setGroupStatus(pending, "pending_review")
        const elsewhere = yield* community({ signIn: "token" })
        yield* makeGroup(elsewhere.member)

        const list = (urlParams: Parameters<typeof c.admin.client.adminGroups.list>[0]["urlParams"]) =>
          c.admin.client.adminGroups.list({ urlParams }).pipe(expectOk)
        const all = yield* list({})
        assertIds(all, [pending, archived, knitting, typed])
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 4, total_pages: 1, has_more: false })
        assert.deepInclude(asJson(all.data[3]), {
          type: { id: type.id, name: type.name },
          location: "Leeds",
          member_counts: { active: 1, pending: 0, banned: 0 },
          is_featured: false,
          featured_at: null
        })

        assertIds(yield* list({ status: "archived" }), [archived])
        assertIds(yield* list({ status: "pending_review" }), [pending])
        assertIds(yield* list({ type_id: type.id }), [typed])
        assertIds(yield* list({ visibility: "private" }), [knitting])
        assertIds(yield* list({ search: "knitting" }), [knitting])
        assertIds(yield* list({ owner_id: c.other.id }), [pending, knitting])
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(typed.id) } }).pipe(expectOk)
        assertIds(yield* list({ featured: true }), [typed])
        assertIds(yield* list({ featured: false }), [pending, archived, knitting])

        const second = yield* list({ page: 2, per_page: 3 })
        assertIds(second, [typed])
        assert.deepStrictEqual(second.meta, { current_page: 2, per_page: 3, total: 4, total_pages: 2, has_more: false })
      }))

    it.effect("bad filters → 422 with the parameter; a platform super-admin naming the community sees its groups", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const group = yield* makeGroup(c.member)
        for (
          const [query, field] of [["status=gone", "status"], ["per_page=101", "per_page"], [
            "featured=yes",
            "featured"
          ]]
        ) {
          const res = yield* rawCall("GET", `${ADMIN_GROUPS}?${query}`, c.admin.headers)
          assert.strictEqual(res.status, 422, res.text)
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
        const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
        const res = yield* rawCall("GET", ADMIN_GROUPS, { ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual((res.body as { data: Array<{ id: number }> }).data.map((g) => g.id), [group.id])
      }))
  })

  describe("GET /admin/groups/{id} and members", () => {
    it.effect("the detail counts memberships by status; it is the member view plus the admin fields", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", members: 2 })
        const [m1, m2] = c.members
        const group = yield* makeGroup(c.member, { visibility: "private" })
        yield* join(c.other, group)
        yield* join(m1!, group)
        yield* setMember(c.member, group, m1!, { status: "active", role: "organiser" })
        yield* join(m2!, group)
        yield* setMember(c.member, group, m2!, { status: "banned" })

        const detail = yield* adminGroup(c.admin, group.id)
        assert.deepStrictEqual(asJson(detail.member_counts), { active: 2, pending: 1, banned: 1 })
        assert.strictEqual(detail.member_count, 2)
        const { featured_at, is_featured, member_counts: _, ...memberShape } = asJson(detail) as Record<string, unknown>
        assert.deepStrictEqual(memberShape, asJson(yield* readGroup(c.admin, group)))
        assert.deepStrictEqual([is_featured, featured_at], [false, null])

        const members = (
          urlParams: {
            status?: "pending" | "active" | "banned"
            role?: "owner" | "organiser" | "member"
            page?: number
            per_page?: number
          }
        ) => c.admin.client.adminGroups.members({ path: { id: gid(group.id) }, urlParams }).pipe(expectOk)
        const all = yield* members({})
        assert.deepStrictEqual(
          all.data.map((m) => m.user.id),
          [c.member.id, c.other.id, m1!.id, m2!.id].sort((a, b) => a - b)
        )
        assert.strictEqual(all.meta.total, 4)
        assert.deepStrictEqual((yield* members({ status: "banned" })).data.map((m) => m.user.id), [m2!.id])
        assert.deepStrictEqual((yield* members({ status: "pending" })).data.map((m) => m.user.id), [c.other.id])
        assert.deepStrictEqual((yield* members({ role: "organiser" })).data.map((m) => [m.user.id, m.status]), [[
          m1!.id,
          "active"
        ]])
        const paged = yield* members({ page: 2, per_page: 3 })
        assert.strictEqual(paged.data.length, 1)
        assert.deepInclude(paged.meta, { current_page: 2, total: 4, total_pages: 2, has_more: false })
      }))

    it.effect("another community's group, an unknown or a deleted one → 404 on every {id} route", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const foreign = yield* makeGroup(elsewhere.member)
        const gone = yield* makeGroup(c.member)
        yield* c.admin.client.adminGroups.delete({ path: { id: gid(gone.id) } }).pipe(expectOk)
        const api = c.admin.client.adminGroups
        for (const id of [foreign.id, gone.id, 999999999].map(gid)) {
          yield* api.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* api.update({ path: { id }, payload: { name: "Taken over" } }).pipe(expectError(404, "NOT_FOUND"))
          yield* api.setStatus({ path: { id }, payload: { status: "archived" } }).pipe(expectError(404, "NOT_FOUND"))
          yield* api.toggleFeatured({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* api.members({ path: { id }, urlParams: {} }).pipe(expectError(404, "NOT_FOUND"))
          yield* api.delete({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // The foreign group is untouched.
        const theirs = yield* adminGroup(elsewhere.admin, foreign.id)
        assert.deepInclude(asJson(theirs), { name: foreign.name, status: "pending_review", is_featured: false })
      }))
  })

  describe("PUT /admin/groups/{id}", () => {
    it.effect("edits the fields and hands the group over; the member routes show it; GroupUpdated", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const type = yield* makeGroupType(c.tenant)
        const group = yield* makeGroup(c.member)
        yield* join(c.other, group)
        const res = yield* c.admin.client.adminGroups.update({
          path: { id: gid(group.id) },
          payload: { name: "Menders", location: "York", type_id: type.id, visibility: "private", owner_id: c.other.id }
        }).pipe(expectOk)
        assert.deepInclude(asJson(res.data), {
          name: "Menders",
          location: "York",
          type_id: type.id,
          visibility: "private"
        })
        assert.strictEqual(res.data.owner.id, c.other.id)

        const seen = yield* readGroup(c.member, group)
        assert.deepInclude(asJson(seen), { name: "Menders", location: "York", visibility: "private" })
        assert.strictEqual(seen.owner.id, c.other.id)
        assert.deepStrictEqual(seen.membership, { role: "organiser", status: "active" })
        const events = yield* outboxOf(c.tenant, "GroupUpdated")
        assert.deepStrictEqual(events.map((e) => e["fields"]), [["name", "type_id", "visibility", "location"], [
          "owner_id"
        ]])
        assert.deepStrictEqual(events.map((e) => e["updated_by"]), [c.admin.id, c.admin.id])
      }))

    it.effect("422: blank name, an unknown field, another community's type, an owner who is no member or banned", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", members: 1 })
        const group = yield* makeGroup(c.member)
        const banned = c.members[0]!
        yield* join(banned, group)
        yield* setMember(c.member, group, banned, { status: "banned" })
        const foreignType = yield* makeGroupType((yield* community({ signIn: "token" })).tenant)
        const path = `${ADMIN_GROUPS}/${group.id}`
        for (
          const [body, field] of [
            [{ name: "  " }, "name"],
            [{ status: "archived" }, "status"],
            [{ type_id: foreignType.id }, "type_id"],
            [{ owner_id: c.other.id }, "owner_id"],
            [{ owner_id: banned.id }, "owner_id"],
            [{ owner_id: "x" }, "owner_id"]
          ] as const
        ) {
          const res = yield* rawCall("PUT", path, c.admin.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), [field], JSON.stringify(body))
        }
        const after = yield* adminGroup(c.admin, group.id)
        assert.strictEqual(after.name, group.name)
        assert.strictEqual(after.owner.id, c.member.id)
      }))
  })

  describe("PUT /admin/groups/{id}/status", () => {
    it.effect("archived shows on the member routes; allowed moves pass, others and the same status → 409", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const group = yield* makeGroup(c.member)
        const set = (status: "pending_review" | "active" | "dormant" | "archived" | "rejected") =>
          c.admin.client.adminGroups.setStatus({ path: { id: gid(group.id) }, payload: { status } })
        assert.strictEqual((yield* set("archived").pipe(expectOk)).data.status, "archived")
        assert.strictEqual((yield* readGroup(c.other, group)).status, "archived")
        const conflict = yield* set("archived").pipe(expectError(409, "INVALID_STATE"))
        assert.match(conflict.message, /active, dormant/)
        yield* set("rejected").pipe(expectError(409, "INVALID_STATE"))
        yield* set("dormant").pipe(expectOk)
        yield* set("pending_review").pipe(expectError(409, "INVALID_STATE"))
        yield* set("active").pipe(expectOk)
        assert.strictEqual((yield* readGroup(c.other, group)).status, "active")
        const moves = yield* outboxOf(c.tenant, "GroupUpdated")
        assert.deepStrictEqual(moves.map((e) => [e["previous_status"], (e["group"] as { status: string }).status]), [
          ["active", "archived"],
          ["archived", "dormant"],
          ["dormant", "active"]
        ])
        const bad = yield* rawCall("PUT", `${ADMIN_GROUPS}/${group.id}/status`, c.admin.headers, { status: "closed" })
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(fieldsOf(bad.body), ["status"])
      }))

    it.effect("pending_review → active approves (the owner's bell); rejected → pending_review reviews again", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const group = yield* makeGroup(c.member)
        assert.strictEqual(group.status, "pending_review")
        const set = (status: "pending_review" | "active" | "rejected") =>
          c.admin.client.adminGroups.setStatus({ path: { id: gid(group.id) }, payload: { status } }).pipe(expectOk)
        yield* set("rejected")
        yield* set("pending_review")
        yield* set("active")
        assert.include(yield* memberListIds(c.other), group.id)
        const approved = yield* bellsAbout(c.member, "group_approved", group)
        assert.strictEqual(approved.length, 1)
        const rejected = yield* bellsAbout(c.member, "group_rejected", group)
        assert.deepStrictEqual(rejected.map((b) => b.body), [`“${group.name}” was not approved.`])
      }))
  })

  describe("DELETE /admin/groups/{id}", () => {
    it.effect("deletes for everyone: member GET 404, gone from both lists; again → 404", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const group = yield* makeGroup(c.member)
        const res = yield* c.admin.client.adminGroups.delete({ path: { id: gid(group.id) } }).pipe(expectOk)
        assert.deepStrictEqual(res, { data: { id: group.id, deleted: true }, meta: {} })
        yield* c.member.client.groups.get({ path: { id: gid(group.id) } }).pipe(expectError(404, "NOT_FOUND"))
        assert.notInclude(yield* memberListIds(c.member), group.id)
        const listed = yield* c.admin.client.adminGroups.list({ urlParams: {} }).pipe(expectOk)
        assert.strictEqual(listed.meta.total, 0)
        assert.deepStrictEqual((yield* outboxOf(c.tenant, "GroupDeleted")).map((e) => e["deleted_by"]), [c.admin.id])
      }))
  })

  describe("GET /admin/groups/analytics", () => {
    it.effect("counts groups by status, memberships, the last 30 days' activity and this month's growth", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", members: 1 })
        const m0 = c.members[0]!
        const a = yield* makeGroup(c.member)
        yield* join(m0, a)
        const b = yield* makeGroup(c.other, { visibility: "private" })
        yield* join(c.member, b)
        const archived = yield* makeGroup(c.admin)
        yield* setGroupStatus(archived, "archived")
        const pending = yield* makeGroup(c.other)
        yield* setGroupStatus(pending, "pending_review")
        const gone = yield* makeGroup(c.member)
        yield* c.member.client.groupChat.post({ path: { id: gid(gone.id) }, payload: { body: "Bye" } }).pipe(expectOk)
        yield* c.admin.client.adminGroups.delete({ path: { id: gid(gone.id) } }).pipe(expectOk)
        yield* c.admin.client.adminGroups.toggleFeatured({ path: { id: gid(a.id) } }).pipe(expectOk)
        for (const body of ["Hello", "Anyone?"]) {
          yield* c.member.client.groupChat.post({ path: { id: gid(a.id) }, payload: { body } }).pipe(expectOk)
        }
        yield* c.member.client.feed.create({ payload: { body: "In a", group_id: a.id } }).pipe(expectOk)
        yield* c.other.client.feed.create({ payload: { body: "In b", group_id: b.id } }).pipe(expectOk)
        yield* c.other.client.feed.create({ payload: { body: "Everyone" } }).pipe(expectOk)
        // Another community's groups count there only.
        const elsewhere = yield* community({ signIn: "token" })
        yield* makeGroup(elsewhere.member)

        const { data } = yield* c.admin.client.adminGroups.analytics().pipe(expectOk)
        assert.deepStrictEqual(data.groups, {
          total: 4,
          by_status: { pending_review: 1, active: 2, dormant: 0, archived: 1, rejected: 0 },
          featured: 1
        })
        assert.deepStrictEqual(data.members, { total: 6, active: 5, pending: 1, banned: 0, distinct_active: 4 })
        const { since, ...activity } = data.activity
        assert.deepStrictEqual(activity, { chatroom_messages: 2, feed_posts: 2, active_groups: 2 })
        const windowDays = (Date.now() - new Date(asJson(since) as string).getTime()) / 86_400_000
        assert.isTrue(windowDays >= 30 && windowDays < 30.01, String(windowDays))
        const now = new Date()
        const thisMonth = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`
        assert.strictEqual(data.growth.length, 12)
        assert.deepStrictEqual(data.growth[11], { month: thisMonth, new_groups: 4, new_memberships: 6 })
        assert.isTrue(data.growth.slice(0, 11).every((m) => m.new_groups === 0 && m.new_memberships === 0))
        assert.deepStrictEqual(data.growth.map((m) => m.month), [...data.growth.map((m) => m.month)].sort())

        const theirs = yield* elsewhere.admin.client.adminGroups.analytics().pipe(expectOk)
        assert.deepStrictEqual(theirs.data.groups.total, 1)
        assert.deepStrictEqual(theirs.data.activity.feed_posts, 0)
      }))
  })

  describe("who may", () => {
    it.effect("every route: no token → 401; member, broker, coordinator → 403; nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const group = yield* makeGroup(c.member)
        const id = gid(group.id)
        yield* expectAdminOnly(c, (api) => api.adminGroups.list({ urlParams: {} }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.analytics())
        yield* expectAdminOnly(c, (api) => api.adminGroups.approvals({ urlParams: {} }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.approve({ path: { groupId: id } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.reject({ path: { groupId: id }, payload: { reason: "No" } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.featured({ urlParams: {} }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.updateFeatured({ payload: { group_ids: [] } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.recommendations({ urlParams: { user_id: c.member.id } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.toggleFeatured({ path: { id } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.setStatus({ path: { id }, payload: { status: "active" } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.get({ path: { id } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.update({ path: { id }, payload: { name: "Mine" } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.delete({ path: { id } }))
        yield* expectAdminOnly(c, (api) => api.adminGroups.members({ path: { id }, urlParams: {} }))
        yield* expectAdminOnly(c, (api) => api.adminGroupModeration.queue({ urlParams: {} }))
        const after = yield* adminGroup(c.admin, group.id)
        assert.deepInclude(asJson(after), { name: group.name, status: "pending_review", is_featured: false })
        assert.strictEqual(after.owner.id, UserId.make(c.member.id))
      }))
  })
})
