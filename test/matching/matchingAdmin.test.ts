import { assert, layer } from "@effect/vitest"
import { MatchId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { asJson, expectError, expectOk } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { makeCategory, makeListing } from "../fixtures/listings.js"
import { bellOf, dispatchSettled } from "../fixtures/notifications.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { configure, matchesOf, pendingOf, setProfile } from "./matchingKit.js"

const ADMIN = "/api/v2/admin/matching"

/** A community whose member gardens, and `n` gardening offers of another member. */
const gardeners = (n: number, options: { readonly approval?: boolean } = {}) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token" })
    const gardening = yield* makeCategory(c.tenant, { name: "Gardening" })
    yield* setProfile(c.member, { skills: ["gardening"], categories: [gardening.id] })
    if (options.approval === true) yield* configure(c.admin, { approval_required: true })
    const listings = yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
      makeListing(c.other, {
        title: `Gardening ${i + 1}`,
        description: "Mowing and weeding",
        categoryId: gardening.id
      }))
    return { c, gardening, listings }
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("matching: admin", (it) => {
  it.effect("with approval required, matches wait until approved (then shown, with a bell); rejected never", () =>
    Effect.gen(function*() {
      const { c, listings } = yield* gardeners(2, { approval: true })
      const [first, second] = listings
      const before = yield* matchesOf(c.member)
      assert.deepStrictEqual(before.data, [])
      assert.strictEqual(before.meta.total, 0)

      const pending = yield* pendingOf(c.admin, c.member.id)
      assert.deepStrictEqual(pending.map((m) => m.target_id).sort(), [first!.id, second!.id].sort())
      for (const m of pending) {
        assert.strictEqual(m.status, "pending")
        assert.strictEqual(m.user?.id, c.member.id)
        assert.strictEqual(m.user?.first_name, "Mia")
        assert.isNull(m.decided_by)
      }
      // The admins hear once that suggestions wait.
      const waiting = yield* bellOf(c.admin, "match_suggested")
      assert.strictEqual(waiting.length, 1)
      assert.strictEqual(waiting[0]!.title, "New match suggestions await approval")
      assert.include(waiting[0]!.body, "Mia Member")
      assert.deepStrictEqual((yield* expectOk(c.admin.client.adminMatching.approvalStats())).data, {
        pending: 2,
        approved: 0,
        rejected: 0
      })

      const toApprove = pending.find((m) => m.target_id === first!.id)!
      const toReject = pending.find((m) => m.target_id === second!.id)!
      const approved = yield* expectOk(
        c.admin.client.adminMatching.approve({ path: { id: toApprove.id }, payload: { note: "A good fit" } })
      )
      assert.strictEqual(approved.data.status, "approved")
      assert.strictEqual(approved.data.decided_by, c.admin.id)
      assert.strictEqual(approved.data.note, "A good fit")
      assert.isNotNull(approved.data.decided_at)
      const detail = yield* expectOk(c.admin.client.adminMatching.approval({ path: { id: toApprove.id } }))
      assert.deepStrictEqual(asJson(detail.data), asJson(approved.data))

      const shown = yield* matchesOf(c.member)
      assert.deepStrictEqual(shown.data.map((m) => [m.target_id, m.status]), [[first!.id, "approved"]])
      const bell = yield* bellOf(c.member, "match_approved")
      assert.strictEqual(bell[0]!.title, "A match for you: Gardening 1")
      assert.strictEqual(bell[0]!.link, `/listings/${first!.id}`)
      assert.strictEqual(bell[0]!.category, "listings")

      // Decided once: again, either way, is 409.
      yield* expectError(409, "ALREADY_PROCESSED")(
        c.admin.client.adminMatching.approve({ path: { id: toApprove.id }, payload: null })
      )
      yield* expectError(409, "ALREADY_PROCESSED")(
        c.admin.client.adminMatching.reject({ path: { id: toApprove.id }, payload: null })
      )
      // An empty body is a decision without a note.
      const noBody = yield* rawRequest("POST", `${ADMIN}/approvals/${toReject.id}/reject`, { headers: c.adminHeaders })
      assert.strictEqual(noBody.status, 200, noBody.text)
      assert.deepInclude<Record<string, unknown>>(dataOf(noBody.body), {
        status: "rejected",
        note: null,
        decided_by: c.admin.id
      })
      yield* expectError(409, "ALREADY_PROCESSED")(
        c.admin.client.adminMatching.approve({ path: { id: toReject.id }, payload: null })
      )
      assert.deepStrictEqual((yield* expectOk(c.admin.client.adminMatching.approvalStats())).data, {
        pending: 0,
        approved: 1,
        rejected: 1
      })

      // Clearing removes nothing decided, and the recomputation never brings the rejected match back.
      const cleared = yield* expectOk(c.admin.client.adminMatching.clearCache())
      assert.deepStrictEqual(cleared.data, { cleared: 0 })
      const recomputed = yield* matchesOf(c.member)
      assert.deepStrictEqual(recomputed.data.map((m) => m.target_id), [first!.id])
      assert.deepStrictEqual(yield* pendingOf(c.admin, c.member.id), [])
      const rejected = yield* expectOk(
        c.admin.client.adminMatching.approvals({ urlParams: { status: "rejected" } })
      )
      assert.deepStrictEqual(rejected.data.map((m) => m.id), [toReject.id])
      assert.strictEqual(rejected.meta.total, 1)
      // No second bell for the admins: nothing new waited.
      yield* dispatchSettled
      assert.strictEqual((yield* bellOf(c.admin, "match_suggested")).length, 1)

      // The admin writes are in the audit trail under their actions (the approval queue's reads are not).
      const log = yield* expectOk(c.admin.client.adminActivity.log({ urlParams: {} }))
      assert.deepStrictEqual(
        log.data.map((e) => e.action).filter((a) => a.startsWith("matching.")),
        [
          "matching.cache.cleared",
          "matching.approval.rejected",
          "matching.approval.approved",
          "matching.config.updated"
        ]
      )
    }))

  it.effect("cache clear deletes undecided matches; the next list recomputes and finds a new listing", () =>
    Effect.gen(function*() {
      const { c, gardening, listings } = yield* gardeners(1)
      assert.deepStrictEqual((yield* matchesOf(c.member)).data.map((m) => m.target_id), [listings[0]!.id])
      const later = yield* makeListing(c.other, { title: "More gardening", categoryId: gardening.id })
      // Stored matches are reused until they are stale.
      assert.deepStrictEqual((yield* matchesOf(c.member)).data.map((m) => m.target_id), [listings[0]!.id])
      const other = yield* gardeners(1)
      yield* matchesOf(other.c.member)

      const cleared = yield* expectOk(c.admin.client.adminMatching.clearCache())
      assert.deepStrictEqual(cleared.data, { cleared: 1 })
      const fresh = yield* matchesOf(c.member)
      assert.deepStrictEqual(fresh.data.map((m) => m.target_id).sort(), [listings[0]!.id, later.id].sort())
      // Another community's matches were not touched.
      const stats = yield* expectOk(other.c.admin.client.adminMatching.stats())
      assert.strictEqual(stats.data.visible, 1)
    }))

  it.effect("the configuration changes scores and the threshold; PUT is partial; bad values are 422", () =>
    Effect.gen(function*() {
      const { c, gardening, listings } = yield* gardeners(1)
      const defaults = yield* expectOk(c.admin.client.adminMatching.config())
      assert.deepStrictEqual(defaults.data, {
        weights: { category: 3, skills: 4, distance: 2, availability: 1 },
        min_score: 0.4,
        approval_required: false
      })
      const weak = yield* makeListing(c.other, { title: "Lawn care", description: "Grass", categoryId: gardening.id })
      const first = yield* matchesOf(c.member)
      // Category and skills, distance and availability unknown: (3 + 4 + 1 + 0.5) / 10.
      assert.strictEqual(first.data.find((m) => m.target_id === listings[0]!.id)!.score, 0.85)
      // Category only: (3 + 0 + 1 + 0.5) / 10.
      assert.strictEqual(first.data.find((m) => m.target_id === weak.id)!.score, 0.45)

      const skillsOnly = yield* configure(c.admin, { weights: { category: 0, distance: 0, availability: 0 } })
      assert.deepStrictEqual(skillsOnly.weights, { category: 0, skills: 4, distance: 0, availability: 0 })
      assert.strictEqual(skillsOnly.min_score, 0.4)
      const bySkills = yield* matchesOf(c.member)
      assert.deepStrictEqual(bySkills.data.map((m) => [m.target_id, m.score, m.reasons]), [
        [listings[0]!.id, 1, ["skills:gardening"]]
      ])
      // The weights are the ranking area `matching` of the configuration documents.
      const algorithms = yield* expectOk(c.admin.client.adminConfigAreas.algorithms())
      assert.deepInclude(algorithms.data.matching.weights, { category: 0, skills: 4, distance: 0, availability: 0 })

      yield* configure(c.admin, { weights: { category: 3, distance: 2, availability: 1 }, min_score: 0.86 })
      assert.deepStrictEqual((yield* matchesOf(c.member)).data, [])
      const lowered = yield* configure(c.admin, { min_score: 0.45 })
      assert.deepStrictEqual(lowered, {
        weights: { category: 3, skills: 4, distance: 2, availability: 1 },
        min_score: 0.45,
        approval_required: false
      })
      assert.strictEqual((yield* matchesOf(c.member)).meta.total, 2)

      const bad = (body: string) => rawRequest("PUT", `${ADMIN}/config`, { headers: c.adminHeaders, body })
      for (
        const [body, field] of [
          [`{"weights": {"category": 0, "skills": 0, "distance": 0, "availability": 0}}`, "weights"],
          [`{"weights": {"skills": 11}}`, "weights.skills"],
          [`{"weights": {"skills": -1}}`, "weights.skills"],
          [`{"weights": {"karma": 1}}`, "weights.karma"],
          [`{"min_score": 1.5}`, "min_score"],
          [`{"min_score": "high"}`, "min_score"],
          [`{"approval_required": "yes"}`, "approval_required"],
          [`{"threshold": 0.5}`, "threshold"]
        ] as const
      ) {
        const answer = yield* bad(body)
        assert.strictEqual(answer.status, 422, body)
        assert.strictEqual(codeOf(answer.body), "VALIDATION_ERROR")
        assert.include(fieldsOf(answer.body), field, body)
      }
      assert.deepStrictEqual((yield* expectOk(c.admin.client.adminMatching.config())).data, lowered)
    }))

  it.effect("stats count profiles and matches per status, with the average score", () =>
    Effect.gen(function*() {
      const { c, gardening } = yield* gardeners(3, { approval: true })
      const another = yield* makeActor(c.tenant, {}, "token")
      yield* setProfile(another, { skills: ["gardening"], categories: [gardening.id] })
      yield* matchesOf(c.member)
      yield* matchesOf(another)
      const all = [...(yield* pendingOf(c.admin, c.member.id)), ...(yield* pendingOf(c.admin, another.id))]
      assert.strictEqual(all.length, 6)
      yield* expectOk(c.admin.client.adminMatching.approve({ path: { id: all[0]!.id }, payload: null }))
      yield* expectOk(c.admin.client.adminMatching.reject({ path: { id: all[1]!.id }, payload: null }))
      const stats = yield* expectOk(c.admin.client.adminMatching.stats())
      const kept = all.filter((_, i) => i !== 1)
      assert.deepStrictEqual(stats.data, {
        members_with_profile: 2,
        members_computed: 2,
        matches: 6,
        visible: 0,
        pending: 4,
        approved: 1,
        rejected: 1,
        average_score: Math.round((kept.reduce((s, m) => s + m.score, 0) / kept.length) * 10_000) / 10_000
      })
      // Paging and the member filter of the queue.
      const page = yield* expectOk(
        c.admin.client.adminMatching.approvals({ urlParams: { per_page: 4, page: 2 } })
      )
      assert.strictEqual(page.data.length, 2)
      assert.deepInclude(page.meta, { current_page: 2, per_page: 4, total: 6, total_pages: 2, has_more: false })
      const mine = yield* expectOk(c.admin.client.adminMatching.approvals({ urlParams: { user_id: another.id } }))
      assert.strictEqual(mine.meta.total, 3)
      assert.isTrue(mine.data.every((m) => m.user_id === another.id))
    }))

  it.effect("admin routes: 401 without a token, 403 for members, brokers and coordinators, 404 across tenants", () =>
    Effect.gen(function*() {
      const { c } = yield* gardeners(1, { approval: true })
      yield* matchesOf(c.member)
      const [match] = yield* pendingOf(c.admin, c.member.id)
      const routes: ReadonlyArray<readonly ["GET" | "PUT" | "POST", string, string?]> = [
        ["GET", `${ADMIN}/config`],
        ["PUT", `${ADMIN}/config`, `{"min_score": 0.2}`],
        ["POST", `${ADMIN}/cache/clear`],
        ["GET", `${ADMIN}/stats`],
        ["GET", `${ADMIN}/approvals`],
        ["GET", `${ADMIN}/approvals/stats`],
        ["GET", `${ADMIN}/approvals/${match!.id}`],
        ["POST", `${ADMIN}/approvals/${match!.id}/approve`, "{}"],
        ["POST", `${ADMIN}/approvals/${match!.id}/reject`, "{}"]
      ]
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const [method, path, body] of routes) {
        const options = body === undefined ? {} : { body }
        const anonymous = yield* rawRequest(method, path, { headers: c.anonymous, ...options })
        assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
        for (const who of [c.member, broker, coordinator]) {
          const answer = yield* rawRequest(method, path, { headers: who.headers, ...options })
          assert.strictEqual(answer.status, 403, `${method} ${path}`)
          assert.strictEqual(codeOf(answer.body), "FORBIDDEN")
        }
      }
      // Nothing changed.
      assert.strictEqual(
        (yield* expectOk(c.admin.client.adminMatching.approval({ path: { id: match!.id } }))).data
          .status,
        "pending"
      )
      assert.strictEqual((yield* expectOk(c.admin.client.adminMatching.config())).data.min_score, 0.4)

      // Another community's admin does not find the match.
      const elsewhere = yield* community({ signIn: "token" })
      const id = match!.id
      yield* expectError(404, "NOT_FOUND")(elsewhere.admin.client.adminMatching.approval({ path: { id } }))
      yield* expectError(404, "NOT_FOUND")(
        elsewhere.admin.client.adminMatching.approve({ path: { id }, payload: null })
      )
      yield* expectError(404, "NOT_FOUND")(elsewhere.admin.client.adminMatching.reject({ path: { id }, payload: null }))
      yield* expectError(404, "NOT_FOUND")(
        c.admin.client.adminMatching.approval({ path: { id: MatchId.make(id + 1_000_000) } })
      )
      const theirs = yield* expectOk(elsewhere.admin.client.adminMatching.approvals({ urlParams: {} }))
      assert.strictEqual(theirs.meta.total, 0)
      assert.deepStrictEqual((yield* expectOk(elsewhere.admin.client.adminMatching.stats())).data.matches, 0)

      // A platform super-admin naming the community may; a bad note is 422.
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const headers = { ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) }
      const tooLong = yield* rawRequest("POST", `${ADMIN}/approvals/${id}/approve`, {
        headers,
        body: JSON.stringify({ note: "x".repeat(501) })
      })
      assert.strictEqual(tooLong.status, 422)
      assert.include(fieldsOf(tooLong.body), "note")
      const approved = yield* rawRequest("POST", `${ADMIN}/approvals/${id}/approve`, { headers, body: "{}" })
      assert.strictEqual(approved.status, 200, approved.text)
      assert.deepInclude<Record<string, unknown>>(dataOf(approved.body), {
        status: "approved",
        decided_by: superAdmin.id
      })
    }))
})
