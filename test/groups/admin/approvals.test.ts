import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fieldsOf } from "../../fixtures/bodies.js"
import { asJson, expectError, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { outboxOf, rawCall } from "../../fixtures/events.js"
import { makeGroup, readGroup } from "../../fixtures/groups.js"
import { rawRequest, TestApp } from "../../fixtures/TestApp.js"
import { adminGroup, assertIds, bellsAbout, gid, memberListIds } from "./adminGroupsKit.js"

const APPROVALS = "/api/v2/admin/groups/approvals"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin group approvals", (it) => {
  describe("GET /admin/groups/approvals", () => {
    it.effect("lists the groups waiting for review, oldest first; admins' own and approved ones are not there", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const first = yield* makeGroup(c.member)
        const second = yield* makeGroup(c.other, { visibility: "private" })
        const third = yield* makeGroup(c.member)
        yield* makeGroup(c.admin)
        yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(third.id) } }).pipe(expectOk)
        const elsewhere = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        yield* makeGroup(elsewhere.member)

        const page = yield* c.admin.client.adminGroups.approvals({ urlParams: {} }).pipe(expectOk)
        assertIds(page, [first, second])
        assert.deepStrictEqual(page.meta, { current_page: 1, per_page: 20, total: 2, total_pages: 1, has_more: false })
        assert.isTrue(page.data.every((g) => g.status === "pending_review"))
        const one = yield* c.admin.client.adminGroups.approvals({ urlParams: { page: 2, per_page: 1 } }).pipe(expectOk)
        assertIds(one, [second])
      }))
  })

  describe("approve", () => {
    it.effect("→ active: the member list shows it, the owner gets a bell, GroupApproved; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const group = yield* makeGroup(c.member)
        assert.notInclude(yield* memberListIds(c.other), group.id)
        yield* c.other.client.groups.get({ path: { id: gid(group.id) } }).pipe(expectError(404, "NOT_FOUND"))

        const res = yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(group.id) } }).pipe(expectOk)
        assert.deepInclude(asJson(res.data), { id: group.id, status: "active", is_featured: false })
        assert.include(yield* memberListIds(c.other), group.id)
        assert.strictEqual((yield* readGroup(c.other, group)).status, "active")

        const bells = yield* bellsAbout(c.member, "group_approved", group)
        assert.strictEqual(bells.length, 1)
        assert.deepInclude(bells[0]!, {
          category: "groups",
          title: `Your group ${group.name} was approved`,
          body: `“${group.name}” is now open to the community.`
        })
        assert.strictEqual(bells[0]!.actor?.id, c.admin.id)
        assert.deepStrictEqual(yield* bellsAbout(c.other, "group_approved", group), [])
        assert.deepStrictEqual(yield* outboxOf(c.tenant, "GroupApproved"), [{
          group_id: group.id,
          group_name: group.name,
          owner_id: c.member.id,
          approved_by: c.admin.id
        }])

        const again = yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(group.id) } }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        assert.match(again.message, /active/)
        yield* c.admin.client.adminGroups.reject({ path: { groupId: gid(group.id) }, payload: null }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        assert.strictEqual((yield* outboxOf(c.tenant, "GroupApproved")).length, 1)
        assert.strictEqual((yield* bellsAbout(c.member, "group_approved", group)).length, 1)
      }))

    it.effect("an active group (it never waited) → 409 ALREADY_PROCESSED; other tenant's → 404", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const active = yield* makeGroup(c.member)
        yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(active.id) } }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        const elsewhere = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const foreign = yield* makeGroup(elsewhere.member)
        yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(foreign.id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* c.admin.client.adminGroups.reject({ path: { groupId: gid(foreign.id) }, payload: { reason: "x" } })
          .pipe(expectError(404, "NOT_FOUND"))
        assert.strictEqual((yield* adminGroup(elsewhere.admin, foreign.id)).status, "pending_review")
      }))
  })

  describe("reject", () => {
    it.effect("→ rejected with the reason in the owner's bell; hidden from other members; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const group = yield* makeGroup(c.member)
        // Raw: untrimmed text the client does not send.
        const res = yield* rawCall("POST", `${APPROVALS}/${group.id}/reject`, c.admin.headers, {
          reason: "  Duplicate of the repair café  "
        })
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual((res.body as { data: { status: string } }).data.status, "rejected")
        assert.notInclude(yield* memberListIds(c.other), group.id)
        // Its owner still sees it, rejected.
        assert.strictEqual((yield* readGroup(c.member, group)).status, "rejected")

        const bells = yield* bellsAbout(c.member, "group_rejected", group)
        assert.deepStrictEqual(bells.map((b) => [b.title, b.body]), [[
          `Your group ${group.name} was not approved`,
          `“${group.name}” was not approved. Reason: Duplicate of the repair café`
        ]])
        assert.deepStrictEqual((yield* outboxOf(c.tenant, "GroupRejected")).map((e) => e["reason"]), [
          "Duplicate of the repair café"
        ])
        yield* c.admin.client.adminGroups.reject({ path: { groupId: gid(group.id) }, payload: null }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(group.id) } }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        assert.deepStrictEqual(
          (yield* c.admin.client.adminGroups.approvals({ urlParams: {} }).pipe(expectOk)).data,
          []
        )
      }))

    it.effect("no body, {} and a null reason reject without one; a bad body → 422 with its field, nothing rejected", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", settings: { group_approval_required: true } })
        const [a, b, d, e] = yield* Effect.all([
          makeGroup(c.member),
          makeGroup(c.member),
          makeGroup(c.member),
          makeGroup(c.member)
        ])
        const path = (id: number) => `${APPROVALS}/${id}/reject`
        const none = yield* rawRequest("POST", path(a!.id), { headers: c.admin.headers })
        assert.strictEqual(none.status, 200, none.text)
        const empty = yield* rawCall("POST", path(b!.id), c.admin.headers, {})
        assert.strictEqual(empty.status, 200, empty.text)
        const nulled = yield* rawCall("POST", path(d!.id), c.admin.headers, { reason: null })
        assert.strictEqual(nulled.status, 200, nulled.text)
        assert.deepStrictEqual((yield* outboxOf(c.tenant, "GroupRejected")).map((x) => x["reason"]), [null, null, null])
        const plain = yield* bellsAbout(c.member, "group_rejected", a!)
        assert.deepStrictEqual(plain.map((x) => x.body), [`“${a!.name}” was not approved.`])

        for (
          const [body, field] of [
            [{ reason: "x".repeat(1001) }, "reason"],
            [{ reason: 5 }, "reason"],
            [{ why: "because" }, "why"]
          ] as const
        ) {
          const res = yield* rawCall("POST", path(e!.id), c.admin.headers, body)
          assert.strictEqual(res.status, 422, res.text)
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
        assert.strictEqual((yield* adminGroup(c.admin, e!.id)).status, "pending_review")
      }))
  })
})
