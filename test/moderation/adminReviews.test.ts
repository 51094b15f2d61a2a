import { assert, describe, layer } from "@effect/vitest"
import type { AdminReviewsParams, ReviewId } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeReview, organisationCommunity, type TestOrganisation } from "../fixtures/volunteering.js"
import { expect422, expectAdminOnly, staffOf } from "./moderationKit.js"

const reviewPath = (id: number) => ({ path: { id: id as ReviewId } })

/** A community with an organisation (Olga Owner's), a third member, a broker and a coordinator. */
const reviewsCommunity = () =>
  Effect.gen(function*() {
    const c = yield* organisationCommunity({ signIn: "token", members: 1 })
    return { ...c, third: c.members[0]!, ...(yield* staffOf(c.tenant)) }
  })

/** The public list of the organisation's reviews (no token), newest first. */
const publicReviews = (c: { readonly visitor: { readonly client: Actor["client"] } }, org: TestOrganisation) =>
  Effect.map(
    c.visitor.client.reviews.list({ path: { type: "organization", id: org.id }, urlParams: {} }).pipe(expectOk),
    (page) => page.data.map((r) => r.id as number)
  )

/** The organisation's public count and average. */
const aggregates = (c: { readonly visitor: { readonly headers: Record<string, string> } }, org: TestOrganisation) =>
  Effect.gen(function*() {
    const client = yield* ownAddressClient(c.visitor)
    const detail = yield* client.organisations.get({ path: { id: org.id } }).pipe(expectOk)
    return { review_count: detail.data.review_count, average_rating: detail.data.average_rating }
  })

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin: reviews", (it) => {
  describe("moderation", () => {
    it.effect("hide: gone from the public list, the count and the average at once; again → 409", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const good = yield* makeReview(c.member, { type: "organization", id: c.organisation.id }, 5, "Lovely")
        const bad = yield* makeReview(c.other, { type: "organization", id: c.organisation.id }, 1, "Rude words")
        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [bad.id, good.id])
        assert.deepStrictEqual(yield* aggregates(c, c.organisation), { review_count: 2, average_rating: 3 })

        const hidden = yield* c.admin.client.adminReviews.hide(reviewPath(bad.id)).pipe(expectOk)
        assert.include(hidden.data, {
          id: bad.id,
          rating: 1,
          comment: "Rude words",
          is_hidden: true,
          is_flagged: false,
          target_type: "organization"
        })
        assert.strictEqual(hidden.data.reviewer?.id, c.other.id)

        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [good.id])
        assert.deepStrictEqual(yield* aggregates(c, c.organisation), { review_count: 1, average_rating: 5 })
        yield* c.admin.client.adminReviews.hide(reviewPath(bad.id)).pipe(expectError(409, "INVALID_STATE"))
        const detail = yield* c.admin.client.adminReviews.get(reviewPath(bad.id)).pipe(expectOk)
        assert.strictEqual(detail.data.is_hidden, true)
        // A hidden review cannot be reported any more: members no longer see it.
        yield* c.third.client.reports.create({ payload: { target_type: "review", target_id: bad.id, reason: "x" } })
          .pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("a hidden review of a member leaves that member's reviews list", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const review = yield* makeReview(c.member, { type: "user", id: c.other.id }, 2, "Late")
        const ids = Effect.map(
          c.visitor.client.reviews.list({ path: { type: "user", id: c.other.id }, urlParams: {} }).pipe(expectOk),
          (page) => page.data.map((r) => r.id as number)
        )
        assert.deepStrictEqual(yield* ids, [review.id])
        yield* c.admin.client.adminReviews.hide(reviewPath(review.id)).pipe(expectOk)
        assert.deepStrictEqual(yield* ids, [])
      }))

    it.effect("flag: the review stays public and counted; again → 409; hiding it later still works", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const review = yield* makeReview(c.member, { type: "organization", id: c.organisation.id }, 2, "Hmm")
        const flagged = yield* c.admin.client.adminReviews.flag(reviewPath(review.id)).pipe(expectOk)
        assert.include(flagged.data, { id: review.id, is_flagged: true, is_hidden: false })
        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [review.id])
        assert.deepStrictEqual(yield* aggregates(c, c.organisation), { review_count: 1, average_rating: 2 })
        yield* c.admin.client.adminReviews.flag(reviewPath(review.id)).pipe(expectError(409, "INVALID_STATE"))
        const hidden = yield* c.admin.client.adminReviews.hide(reviewPath(review.id)).pipe(expectOk)
        assert.include(hidden.data, { is_flagged: true, is_hidden: true })
        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [])
        assert.deepStrictEqual(yield* aggregates(c, c.organisation), { review_count: 0, average_rating: null })
      }))

    it.effect("delete: gone for good; the reviewer may review again; again → 404", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const target = { target_type: "organization" as const, target_id: c.organisation.id }
        const created = yield* c.member.client.reviews.create({ payload: { ...target, rating: 1, comment: "Meh" } })
          .pipe(expectOk)
        yield* c.member.client.reviews.create({ payload: { ...target, rating: 2, comment: "Again" } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        const res = yield* c.admin.client.adminReviews.delete(reviewPath(created.data.id)).pipe(expectOk)
        assert.deepStrictEqual(res.data, { id: created.data.id, deleted: true })
        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [])
        yield* c.admin.client.adminReviews.get(reviewPath(created.data.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminReviews.delete(reviewPath(created.data.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminReviews.flag(reviewPath(created.data.id)).pipe(expectError(404, "NOT_FOUND"))
        const again = yield* c.member.client.reviews.create({ payload: { ...target, rating: 4, comment: "Better" } })
          .pipe(expectOk)
        assert.deepStrictEqual(yield* publicReviews(c, c.organisation), [again.data.id])
      }))
  })

  describe("list", () => {
    it.effect("every review, hidden and flagged ones included, newest first; each filter narrows it", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const org = { type: "organization" as const, id: c.organisation.id }
        const r1 = yield* makeReview(c.member, org, 5)
        const r2 = yield* makeReview(c.other, org, 1)
        const r3 = yield* makeReview(c.member, { type: "user", id: c.other.id }, 4)
        const r4 = yield* makeReview(c.third, { type: "user", id: c.member.id }, 1)
        yield* c.admin.client.adminReviews.hide(reviewPath(r2.id)).pipe(expectOk)
        yield* c.admin.client.adminReviews.flag(reviewPath(r4.id)).pipe(expectOk)

        const ids = (urlParams: AdminReviewsParams) =>
          Effect.map(c.admin.client.adminReviews.list({ urlParams }).pipe(expectOk), (page) => ({
            ids: page.data.map((r) => r.id as number),
            total: page.meta.total
          }))
        assert.deepStrictEqual(yield* ids({}), { ids: [r4.id, r3.id, r2.id, r1.id], total: 4 })
        assert.deepStrictEqual((yield* ids({ target_type: "organization" })).ids, [r2.id, r1.id])
        assert.deepStrictEqual((yield* ids({ target_type: "user", target_id: c.other.id })).ids, [r3.id])
        assert.deepStrictEqual((yield* ids({ reviewer_id: c.member.id })).ids, [r3.id, r1.id])
        assert.deepStrictEqual((yield* ids({ is_hidden: true })).ids, [r2.id])
        assert.deepStrictEqual((yield* ids({ is_flagged: true })).ids, [r4.id])
        assert.deepStrictEqual((yield* ids({ is_flagged: false, is_hidden: false })).ids, [r3.id, r1.id])
        assert.deepStrictEqual((yield* ids({ rating: 1 })).ids, [r4.id, r2.id])
        const page = yield* c.admin.client.adminReviews.list({ urlParams: { per_page: 3, page: 2 } }).pipe(expectOk)
        assert.deepStrictEqual(page.data.map((r) => r.id), [r1.id])
        assert.deepStrictEqual(page.meta, { current_page: 2, per_page: 3, total: 4, total_pages: 2, has_more: false })
      }))

    it.effect("bad filters are 422 on their field", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const REVIEWS = "/api/v2/admin/reviews"
        yield* expect422(c.admin, "GET", `${REVIEWS}?rating=6`, "rating")
        yield* expect422(c.admin, "GET", `${REVIEWS}?rating=2.5`, "rating")
        yield* expect422(c.admin, "GET", `${REVIEWS}?target_type=group`, "target_type")
        yield* expect422(c.admin, "GET", `${REVIEWS}?is_flagged=yes`, "is_flagged")
        yield* expect422(c.admin, "GET", `${REVIEWS}?reviewer_id=-1`, "reviewer_id")
      }))
  })

  describe("access", () => {
    it.effect("no token 401; member, broker, coordinator 403 on every route, and nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* reviewsCommunity()
        const review = yield* makeReview(c.member, { type: "organization", id: c.organisation.id }, 3)
        yield* expectAdminOnly(c, [
          (client) => client.adminReviews.list({ urlParams: {} }),
          (client) => client.adminReviews.get(reviewPath(review.id)),
          (client) => client.adminReviews.flag(reviewPath(review.id)),
          (client) => client.adminReviews.hide(reviewPath(review.id)),
          (client) => client.adminReviews.delete(reviewPath(review.id))
        ])
        const detail = yield* c.admin.client.adminReviews.get(reviewPath(review.id)).pipe(expectOk)
        assert.include(detail.data, { is_flagged: false, is_hidden: false })
      }))

    it.effect("another community's reviews are 404 and stay as they were", () =>
      Effect.gen(function*() {
        const a = yield* reviewsCommunity()
        const b = yield* reviewsCommunity()
        const review = yield* makeReview(b.member, { type: "organization", id: b.organisation.id }, 3)
        const client = a.admin.client.adminReviews
        yield* client.get(reviewPath(review.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* client.flag(reviewPath(review.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* client.hide(reviewPath(review.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* client.delete(reviewPath(review.id)).pipe(expectError(404, "NOT_FOUND"))
        const listed = yield* a.admin.client.adminReviews.list({ urlParams: {} }).pipe(expectOk)
        assert.strictEqual(listed.meta.total, 0)
        const detail = yield* b.admin.client.adminReviews.get(reviewPath(review.id)).pipe(expectOk)
        assert.include(detail.data, { is_flagged: false, is_hidden: false })
        assert.deepStrictEqual(yield* publicReviews(b, b.organisation), [review.id])
      }))
  })
})
