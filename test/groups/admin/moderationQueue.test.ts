import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fieldsOf } from "../../fixtures/bodies.js"
import { type ApiClient, asJson, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { rawCall } from "../../fixtures/events.js"
import { makeGroup } from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { gid } from "./adminGroupsKit.js"

const QUEUE = "/api/v2/admin/groups/moderation"

const report = (client: ApiClient, targetType: "group" | "user", targetId: number, reason = "Spam") =>
  Effect.map(
    client.reports.create({ payload: { target_type: targetType, target_id: targetId, reason } }).pipe(expectOk),
    (res) => res.data
  )

/** Closes every open report about the group, as an admin's resolve would (the reports' own routes are elsewhere). */
const closeReportsAbout = (group: { readonly id: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE member_reports SET status = 'resolved', resolved_at = now()
          WHERE target_type = 'group' AND target_id = ${group.id}`
  ).pipe(Effect.orDie)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin group moderation queue", (it) => {
  it.effect("groups with open reports or waiting for review, longest waiting first; filters; leaves when settled", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", members: 1, settings: { group_approval_required: true } })
      const waiting = yield* makeGroup(c.member)
      const reported = yield* makeGroup(c.admin)
      const both = yield* makeGroup(c.other)
      const quiet = yield* makeGroup(c.admin)
      const gone = yield* makeGroup(c.admin)
      const first = yield* report(c.other.client, "group", reported.id)
      yield* report(c.members[0]!.client, "group", reported.id, "Rude")
      yield* report(c.admin.client, "group", both.id)
      yield* report(c.other.client, "user", c.member.id)
      yield* report(c.other.client, "group", gone.id)
      yield* c.admin.client.adminGroups.delete({ path: { id: gid(gone.id) } }).pipe(expectOk)
      // Another community's queue is its own.
      const elsewhere = yield* community({ signIn: "token", settings: { group_approval_required: true } })
      const foreign = yield* makeGroup(elsewhere.member)

      const queue = (urlParams: { reason?: "reported" | "pending_review"; page?: number; per_page?: number } = {}) =>
        c.admin.client.adminGroupModeration.queue({ urlParams }).pipe(expectOk)
      const all = yield* queue()
      assert.deepStrictEqual(all.data.map((i) => [i.group.id, i.reasons]), [
        [waiting.id, ["pending_review"]],
        [both.id, ["reported", "pending_review"]],
        [reported.id, ["reported"]]
      ])
      assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
      assert.notInclude(all.data.map((i) => i.group.id), quiet.id)
      const item = asJson(all.data[2]) as Record<string, unknown>
      assert.deepStrictEqual(item, {
        group: {
          id: reported.id,
          name: reported.name,
          visibility: "public",
          status: "active",
          owner: { id: c.admin.id, first_name: "Ada", last_name: "Admin", avatar_url: null },
          created_at: asJson(reported.created_at)
        },
        reasons: ["reported"],
        open_reports: 2,
        oldest_open_report_at: asJson(first.created_at),
        waiting_since: asJson(first.created_at)
      })
      assert.strictEqual((asJson(all.data[0]) as { waiting_since: unknown }).waiting_since, asJson(waiting.created_at))

      assert.deepStrictEqual((yield* queue({ reason: "reported" })).data.map((i) => i.group.id), [both.id, reported.id])
      assert.deepStrictEqual((yield* queue({ reason: "pending_review" })).data.map((i) => i.group.id), [
        waiting.id,
        both.id
      ])
      const second = yield* queue({ page: 2, per_page: 1 })
      assert.deepStrictEqual(second.data.map((i) => i.group.id), [both.id])
      assert.deepStrictEqual(second.meta, { current_page: 2, per_page: 1, total: 3, total_pages: 3, has_more: true })

      // Settled: approved, and its reports closed.
      yield* c.admin.client.adminGroups.approve({ path: { groupId: gid(waiting.id) } }).pipe(expectOk)
      yield* closeReportsAbout(reported)
      const after = yield* queue()
      assert.deepStrictEqual(after.data.map((i) => [i.group.id, i.reasons]), [[both.id, [
        "reported",
        "pending_review"
      ]]])

      const theirs = yield* elsewhere.admin.client.adminGroupModeration.queue({ urlParams: {} }).pipe(expectOk)
      assert.deepStrictEqual(theirs.data.map((i) => i.group.id), [foreign.id])
    }))

  it.effect("a bad reason or page → 422 with the parameter", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      for (const [query, field] of [["reason=spam", "reason"], ["page=0", "page"], ["per_page=500", "per_page"]]) {
        const res = yield* rawCall("GET", `${QUEUE}?${query}`, c.admin.headers)
        assert.strictEqual(res.status, 422, res.text)
        assert.deepStrictEqual(fieldsOf(res.body), [field])
      }
    }))
})
