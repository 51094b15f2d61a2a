import { assert, describe, layer } from "@effect/vitest"
import type { AdminReportsParams, ReportId, ReportTargetType, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { makeEvent } from "../fixtures/events.js"
import { comment, feedIds, makeGroup, post, postPath } from "../fixtures/feed.js"
import { makeListing } from "../fixtures/listings.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeReview } from "../fixtures/volunteering.js"
import { expect422, expectAdminOnly, moderationCommunity } from "./moderationKit.js"

const ADMIN_REPORTS = "/api/v2/admin/reports"

const reportPath = (id: number) => ({ path: { id: id as ReportId } })

/** `who` reports a record; answers the new report's id. */
const report = (
  who: Actor,
  target_type: ReportTargetType,
  target_id: number,
  extra: { readonly safeguarding?: boolean; readonly reason?: string } = {}
) =>
  Effect.map(
    who.client.reports.create({ payload: { target_type, target_id, reason: extra.reason ?? "Not okay", ...extra } })
      .pipe(expectOk),
    (res) => res.data.id as number
  )

/** The member's status as the admin users API shows it. */
const statusOf = (admin: Actor, id: number) =>
  Effect.map(admin.client.adminUsers.get({ path: { id: id as UserId } }).pipe(expectOk), (res) => res.data.status)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin: member reports", (it) => {
  describe("list, stats, detail", () => {
    it.effect("list newest first with filters; stats count what was reported and closed", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.other, "Spam")
        const listing = yield* makeListing(c.other)
        const r1 = yield* report(c.member, "feed_post", p.id, { safeguarding: true })
        const r2 = yield* report(c.member, "listing", listing.id)
        const r3 = yield* report(c.other, "user", c.member.id, { safeguarding: true })
        const r4 = yield* report(c.other, "feed_post", p.id)
        yield* c.admin.client.adminReports.dismiss({ ...reportPath(r2), payload: null }).pipe(expectOk)
        yield* c.admin.client.adminReports.resolve({ ...reportPath(r3), payload: { action: "none" } }).pipe(expectOk)

        const stats = yield* c.admin.client.adminReports.stats().pipe(expectOk)
        assert.deepStrictEqual(stats.data, { open: 2, resolved: 1, dismissed: 1, safeguarding_open: 1, total: 4 })

        const ids = (urlParams: AdminReportsParams) =>
          Effect.map(c.admin.client.adminReports.list({ urlParams }).pipe(expectOk), (page) => ({
            ids: page.data.map((r) => r.id as number),
            total: page.meta.total
          }))
        assert.deepStrictEqual(yield* ids({}), { ids: [r4, r3, r2, r1], total: 4 })
        assert.deepStrictEqual((yield* ids({ status: "open" })).ids, [r4, r1])
        assert.deepStrictEqual((yield* ids({ status: "dismissed" })).ids, [r2])
        assert.deepStrictEqual((yield* ids({ target_type: "feed_post" })).ids, [r4, r1])
        assert.deepStrictEqual((yield* ids({ safeguarding: true })).ids, [r3, r1])
        assert.deepStrictEqual((yield* ids({ safeguarding: false, status: "open" })).ids, [r4])
        assert.deepStrictEqual((yield* ids({ reporter_id: c.other.id })).ids, [r4, r3])

        const page = yield* c.admin.client.adminReports.list({ urlParams: { per_page: 3 } }).pipe(expectOk)
        assert.deepStrictEqual(page.meta, { current_page: 1, per_page: 3, total: 4, total_pages: 2, has_more: true })
        const first = page.data.find((r) => r.id === r3)!
        assert.include(first, { target_type: "user", target_id: c.member.id, status: "resolved", action: "none" })
        assert.strictEqual(first.reporter.id, c.other.id)
        assert.strictEqual(first.resolved_by?.id, c.admin.id)
        assert.isNotNull(first.resolved_at)
        const open = page.data.find((r) => r.id === r4)!
        assert.include(open, { status: "open", action: null, note: null, resolved_by: null, resolved_at: null })
      }))

    it.effect("detail carries the target as it is now, read from its owner", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.other, "Buy my stuff")
        const k = yield* comment(c.other, p.id, "Really, buy it")
        const listing = yield* makeListing(c.other, { title: "Ladder to lend", description: "Tall one" })
        const event = yield* makeEvent(c.other, { title: "Street party" })
        const review = yield* makeReview(c.other, { type: "user", id: c.member.id }, 1, "Awful")
        const group = yield* makeGroup(c.other)
        const author = { id: c.other.id as UserId, first_name: "Otto", last_name: "Other", avatar_url: null }
        const target = (type: ReportTargetType, id: number) =>
          Effect.gen(function*() {
            const reportId = yield* report(c.member, type, id)
            const detail = yield* c.admin.client.adminReports.get(reportPath(reportId)).pipe(expectOk)
            const { status, target_id, target_type } = detail.data
            assert.deepStrictEqual({ id: detail.data.id as number, target_type, target_id, status }, {
              id: reportId,
              target_type: type,
              target_id: id,
              status: "open"
            })
            return detail.data.target
          })
        assert.deepStrictEqual(yield* target("feed_post", p.id), {
          type: "feed_post",
          id: p.id,
          exists: true,
          title: null,
          body: "Buy my stuff",
          author,
          status: null,
          is_hidden: false
        })
        assert.deepInclude(yield* target("comment", k.id), { body: "Really, buy it", author, is_hidden: false })
        assert.deepInclude(yield* target("user", c.other.id), {
          exists: true,
          title: "Otto Other",
          author,
          status: "active"
        })
        assert.deepInclude(yield* target("listing", listing.id), {
          title: "Ladder to lend",
          body: "Tall one",
          author,
          status: "active"
        })
        assert.deepInclude(yield* target("event", event.id), { title: "Street party", author, status: "active" })
        assert.deepInclude(yield* target("review", review.id), { body: "Awful", author, is_hidden: false })
        assert.deepInclude(yield* target("group", group.id), { exists: true, author: null, status: "active" })

        // Deleted since: the report stays, its target says so.
        const reportId = yield* report(c.member, "feed_post", p.id)
        yield* c.other.client.feed.delete(postPath(p.id)).pipe(expectOk)
        const gone = yield* c.admin.client.adminReports.get(reportPath(reportId)).pipe(expectOk)
        assert.deepStrictEqual(gone.data.target, {
          type: "feed_post",
          id: p.id,
          exists: false,
          title: null,
          body: null,
          author: null,
          status: null,
          is_hidden: null
        })
      }))
  })

  describe("resolve", () => {
    it.effect("hide_content hides the reported post: other members lose it, its author keeps it; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity({ members: 1 })
        const p = yield* post(c.other, "Offensive")
        const reportId = yield* report(c.member, "feed_post", p.id)
        const res = yield* c.admin.client.adminReports.resolve({
          ...reportPath(reportId),
          payload: { action: "hide_content", note: "Hidden: offensive" }
        }).pipe(expectOk)
        assert.include(res.data, { status: "resolved", action: "hide_content", note: "Hidden: offensive" })
        assert.strictEqual(res.data.resolved_by?.id, c.admin.id)
        assert.include(res.data.target, { exists: true, is_hidden: true })

        assert.deepStrictEqual(yield* feedIds(c.member), [])
        assert.deepStrictEqual(yield* feedIds(c.members[0]!), [])
        yield* c.member.client.feed.get(postPath(p.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(yield* feedIds(c.other), [p.id])

        yield* c.admin.client.adminReports.resolve({ ...reportPath(reportId), payload: { action: "none" } }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        yield* c.admin.client.adminReports.dismiss({ ...reportPath(reportId), payload: null }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        // The admin audit trail records the resolution (D15), the refused writes not.
        const log = yield* c.admin.client.adminActivity.log({ urlParams: { action: "report.resolved" } }).pipe(expectOk)
        assert.strictEqual(log.data.length, 1)
        assert.deepInclude(log.data[0]!, { action: "report.resolved", target_id: String(reportId) })
        // A second report of the same, already hidden, post resolves the same way.
        const second = yield* report(c.other, "feed_post", p.id)
        const again = yield* c.admin.client.adminReports.resolve({
          ...reportPath(second),
          payload: { action: "hide_content" }
        }).pipe(expectOk)
        assert.include(again.data, { status: "resolved", note: null })
      }))

    it.effect("hide_content hides a reported comment and a reported review where members read them", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.member, "Question")
        const k = yield* comment(c.other, p.id, "Rude answer")
        const review = yield* makeReview(c.other, { type: "user", id: c.admin.id }, 1, "Rude review")
        for (const [type, id] of [["comment", k.id], ["review", review.id]] as const) {
          const reportId = yield* report(c.member, type, id)
          const res = yield* c.admin.client.adminReports.resolve({
            ...reportPath(reportId),
            payload: { action: "hide_content" }
          }).pipe(expectOk)
          assert.include(res.data.target, { is_hidden: true })
        }
        const comments = yield* c.member.client.feed.comments({ ...postPath(p.id), urlParams: {} }).pipe(expectOk)
        assert.deepStrictEqual(comments.data, [])
        const reviews = yield* c.visitor.client.reviews.list({ path: { type: "user", id: c.admin.id }, urlParams: {} })
          .pipe(expectOk)
        assert.deepStrictEqual(reviews.data, [])
      }))

    it.effect("suspend_member suspends the reported member (their token fails) or the reported post's author", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity({ members: 1 })
        const [third] = c.members
        yield* c.other.client.feed.list({ urlParams: {} }).pipe(expectOk)
        const reportId = yield* report(c.member, "user", c.other.id)
        const res = yield* c.admin.client.adminReports.resolve({
          ...reportPath(reportId),
          payload: { action: "suspend_member", note: "Threats" }
        }).pipe(expectOk)
        assert.include(res.data, { status: "resolved", action: "suspend_member", note: "Threats" })
        assert.include(res.data.target, { status: "suspended" })
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "suspended")
        yield* c.other.client.feed.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))

        const p = yield* post(third!, "Scam link")
        const postReport = yield* report(c.member, "feed_post", p.id)
        yield* c.admin.client.adminReports.resolve({
          ...reportPath(postReport),
          payload: { action: "suspend_member" }
        }).pipe(expectOk)
        assert.strictEqual(yield* statusOf(c.admin, third!.id), "suspended")
        assert.strictEqual(yield* statusOf(c.admin, c.member.id), "active")
      }))

    it.effect("an action the target cannot take is 422 on action, and the report stays open and unchanged", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const listing = yield* makeListing(c.other)
        const group = yield* makeGroup(c.other)
        const p = yield* post(c.other, "Soon gone")
        const onUser = yield* report(c.member, "user", c.other.id)
        const onListing = yield* report(c.member, "listing", listing.id)
        const onGroup = yield* report(c.member, "group", group.id)
        const onPost = yield* report(c.member, "feed_post", p.id)
        yield* c.other.client.feed.delete(postPath(p.id)).pipe(expectOk)
        const cases = [
          [onUser, "hide_content"],
          [onListing, "hide_content"],
          [onGroup, "suspend_member"],
          [onPost, "hide_content"],
          [onPost, "suspend_member"]
        ] as const
        for (const [id, action] of cases) {
          const failure = yield* c.admin.client.adminReports.resolve({ ...reportPath(id), payload: { action } }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.deepStrictEqual(failure.fields, ["action"])
        }
        const stats = yield* c.admin.client.adminReports.stats().pipe(expectOk)
        assert.include(stats.data, { open: 4, resolved: 0 })
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "active")
        // The listing's owner may be suspended for it.
        yield* c.admin.client.adminReports.resolve({
          ...reportPath(onListing),
          payload: { action: "suspend_member" }
        }).pipe(expectOk)
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "suspended")
      }))

    it.effect("none closes the report and changes nothing else", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.other, "Borderline")
        const reportId = yield* report(c.member, "feed_post", p.id)
        const res = yield* c.admin.client.adminReports.resolve({ ...reportPath(reportId), payload: { action: "none" } })
          .pipe(expectOk)
        assert.include(res.data, { status: "resolved", action: "none" })
        assert.deepStrictEqual(yield* feedIds(c.member), [p.id])
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "active")
      }))

    it.effect("bad bodies are 422 on their field", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const reportId = yield* report(c.member, "user", c.other.id)
        const path = `${ADMIN_REPORTS}/${reportId}`
        yield* expect422(c.admin, "POST", `${path}/resolve`, "action", {})
        yield* expect422(c.admin, "POST", `${path}/resolve`, "action", { action: "ban" })
        yield* expect422(c.admin, "POST", `${path}/resolve`, "note", { action: "none", note: "x".repeat(2001) })
        yield* expect422(c.admin, "POST", `${path}/resolve`, "note", { action: "none", note: 5 })
        yield* expect422(c.admin, "POST", `${path}/dismiss`, "note", { note: ["no"] })
        yield* expect422(c.admin, "GET", `${ADMIN_REPORTS}?status=closed`, "status")
        yield* expect422(c.admin, "GET", `${ADMIN_REPORTS}?safeguarding=1`, "safeguarding")
        const stats = yield* c.admin.client.adminReports.stats().pipe(expectOk)
        assert.include(stats.data, { open: 1, total: 1 })
      }))
  })

  describe("dismiss", () => {
    it.effect("dismiss closes it with an optional note and touches nothing; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const p = yield* post(c.other, "Fine really")
        const withNote = yield* report(c.member, "feed_post", p.id)
        const withoutBody = yield* report(c.member, "user", c.other.id)
        const res = yield* c.admin.client.adminReports.dismiss({
          ...reportPath(withNote),
          payload: { note: "Nothing wrong" }
        }).pipe(expectOk)
        assert.include(res.data, { status: "dismissed", action: null, note: "Nothing wrong" })
        assert.strictEqual(res.data.resolved_by?.id, c.admin.id)
        // No body at all (raw: the typed client always sends one).
        const raw = yield* rawRequest("POST", `${ADMIN_REPORTS}/${withoutBody}/dismiss`, { headers: c.admin.headers })
        assert.strictEqual(raw.status, 200, raw.text)
        assert.deepInclude((raw.body as { data: object }).data, { status: "dismissed", note: null })
        // A note is trimmed; blank is none (raw: the typed client refuses untrimmed text).
        const third = yield* report(c.member, "user", c.other.id)
        const trimmed = yield* rawRequest("POST", `${ADMIN_REPORTS}/${third}/dismiss`, {
          headers: c.admin.headers,
          body: JSON.stringify({ note: "  Seen it  " })
        })
        assert.deepInclude((trimmed.body as { data: object }).data, { status: "dismissed", note: "Seen it" })
        assert.deepStrictEqual(yield* feedIds(c.member), [p.id])
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "active")
        yield* c.admin.client.adminReports.dismiss({ ...reportPath(withNote), payload: null }).pipe(
          expectError(409, "ALREADY_PROCESSED")
        )
        const stats = yield* c.admin.client.adminReports.stats().pipe(expectOk)
        assert.deepStrictEqual(stats.data, { open: 0, resolved: 0, dismissed: 3, safeguarding_open: 0, total: 3 })
      }))
  })

  describe("access", () => {
    it.effect("no token 401; member, broker, coordinator 403 on every route, and the report stays open", () =>
      Effect.gen(function*() {
        const c = yield* moderationCommunity()
        const reportId = yield* report(c.member, "user", c.other.id)
        yield* expectAdminOnly(c, [
          (client) => client.adminReports.list({ urlParams: {} }),
          (client) => client.adminReports.stats(),
          (client) => client.adminReports.get(reportPath(reportId)),
          (client) => client.adminReports.resolve({ ...reportPath(reportId), payload: { action: "suspend_member" } }),
          (client) => client.adminReports.dismiss({ ...reportPath(reportId), payload: null })
        ])
        const detail = yield* c.admin.client.adminReports.get(reportPath(reportId)).pipe(expectOk)
        assert.strictEqual(detail.data.status, "open")
        assert.strictEqual(yield* statusOf(c.admin, c.other.id), "active")
      }))

    it.effect("another community's reports are 404 and stay open; ids that are not ids are 404", () =>
      Effect.gen(function*() {
        const a = yield* moderationCommunity()
        const b = yield* moderationCommunity()
        const reportId = yield* report(b.member, "user", b.other.id)
        yield* a.admin.client.adminReports.get(reportPath(reportId)).pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminReports.resolve({ ...reportPath(reportId), payload: { action: "suspend_member" } })
          .pipe(expectError(404, "NOT_FOUND"))
        yield* a.admin.client.adminReports.dismiss({ ...reportPath(reportId), payload: null }).pipe(
          expectError(404, "NOT_FOUND")
        )
        const listed = yield* a.admin.client.adminReports.list({ urlParams: {} }).pipe(expectOk)
        assert.strictEqual(listed.meta.total, 0)
        assert.include((yield* a.admin.client.adminReports.stats().pipe(expectOk)).data, { total: 0 })
        const detail = yield* b.admin.client.adminReports.get(reportPath(reportId)).pipe(expectOk)
        assert.strictEqual(detail.data.status, "open")
        assert.strictEqual(yield* statusOf(b.admin, b.other.id), "active")
        // Raw: path ids the typed client cannot send. The funder reports' static paths under /admin/reports
        // (`/hours`, `/export-types`, `/{type}/export`) are theirs: never read as a report id.
        for (const path of ["hours", "export-types", "members/export"]) {
          const res = yield* rawRequest("GET", `${ADMIN_REPORTS}/${path}`, { headers: a.admin.headers })
          assert.strictEqual(res.status, 200, `${path}: ${res.text}`)
        }
        for (const odd of ["abc", "0", "-1", "1.5"]) {
          const res = yield* rawRequest("GET", `${ADMIN_REPORTS}/${odd}`, { headers: a.admin.headers })
          assert.strictEqual(res.status, 404, `${odd}: ${res.text}`)
          const resolve = yield* rawRequest("POST", `${ADMIN_REPORTS}/${odd}/resolve`, {
            headers: a.admin.headers,
            body: JSON.stringify({ action: "none" })
          })
          assert.strictEqual(resolve.status, 404, `${odd}: ${resolve.text}`)
        }
      }))
  })
})
