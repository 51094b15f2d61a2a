import {
  AdminReview,
  type AdminReviewsParams,
  type CurrentTenant,
  ModerationStateConflict,
  NotFound,
  offsetMeta,
  type ReviewId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { type AdminReviewRow, ReviewsAdminRepo } from "./ReviewsAdminRepo.js"
import { toReview } from "./ReviewsService.js"
import { memberOf } from "./VolunteeringViews.js"

export const DEFAULT_ADMIN_REVIEWS_PER_PAGE = 20

const reviewNotFound = () => NotFound.of("Review")

/**
 * Review moderation for community admins (decisions D17 "Moderation"): every review, flagged, hidden and
 * federated ones included. A flagged review stays public; a hidden one leaves every member's list, count and
 * average at once (the members' reads filter on `is_hidden`). Not gated on `volunteering` or the `reviews` module.
 * Moderation's report resolution reads through `get` and hides through `ensureHidden`.
 */
export class ReviewsAdminService extends Effect.Service<ReviewsAdminService>()("ReviewsAdminService", {
  dependencies: [ReviewsAdminRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ReviewsAdminRepo
    const users = yield* UserSummaries

    /** The rows as admins see them: one query for their reviewers. */
    const views = (rows: ReadonlyArray<AdminReviewRow>) =>
      Effect.map(
        users.byIds(rows.flatMap((r) => (r.reviewer_id === null ? [] : [r.reviewer_id]))),
        (reviewers) =>
          rows.map((row) =>
            AdminReview.make({
              ...toReview(row, row.reviewer_id === null ? null : memberOf(reviewers, row.reviewer_id)),
              is_flagged: row.is_flagged,
              is_hidden: row.is_hidden
            })
          )
      )
    const view = (row: AdminReviewRow) => Effect.map(views([row]), (list) => list[0]!)
    const find = (id: number) => Effect.flatten(repo.findById(id)).pipe(Effect.orElseFail(reviewNotFound))

    const list = Effect.fn("ReviewsAdmin.list")(function*(params: AdminReviewsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_REVIEWS_PER_PAGE)
      const { rows, total } = yield* repo.list({
        page,
        perPage,
        targetType: params.target_type,
        targetId: params.target_id,
        reviewerId: params.reviewer_id,
        isFlagged: params.is_flagged,
        isHidden: params.is_hidden,
        rating: params.rating
      })
      return { data: yield* views(rows), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const get = Effect.fn("ReviewsAdmin.get")(function*(id: number) {
      yield* TenantAdmin
      return yield* view(yield* find(id))
    }, requireTenantAdmin)

    const remove = Effect.fn("ReviewsAdmin.delete")(function*(id: ReviewId) {
      yield* TenantAdmin
      if (!(yield* repo.remove(id))) return yield* reviewNotFound()
      return { id, deleted: true as const }
    }, requireTenantAdmin)

    /** Sets a flag once: the changed review, or 409 `INVALID_STATE` when it was set already (unless `allowSet`). */
    const setOnce = (
      change: (id: number) => Effect.Effect<Option.Option<AdminReviewRow>, never, CurrentTenant>,
      id: number,
      already: string,
      allowSet: boolean
    ) =>
      Effect.gen(function*() {
        yield* TenantAdmin
        const changed = yield* change(id)
        if (Option.isSome(changed)) return yield* view(changed.value)
        const current = yield* find(id)
        if (!allowSet) return yield* new ModerationStateConflict({ message: already })
        return yield* view(current)
      })

    const flag = Effect.fn("ReviewsAdmin.flag")(
      (id: ReviewId) => setOnce(repo.flag, id, "This review is flagged already", false),
      requireTenantAdmin
    )

    const hide = Effect.fn("ReviewsAdmin.hide")(
      (id: ReviewId) => setOnce(repo.hide, id, "This review is hidden already", false),
      requireTenantAdmin
    )

    /** The review hidden, whether it was already or not (resolving a report); 404 when it is gone. */
    const ensureHidden = Effect.fn("ReviewsAdmin.ensureHidden")(
      (id: number) => setOnce(repo.hide, id, "", true),
      requireTenantAdmin
    )

    return { list, get, remove, flag, hide, ensureHidden } as const
  })
}) {}
