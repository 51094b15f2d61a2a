import {
  AlreadyExists,
  type CreateReview,
  isVisibleStatus,
  NotFound,
  Review,
  type ReviewId,
  type ReviewTargetPath,
  type UserId,
  type UserSummary,
  ValidationFailed,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type VolunteeringPageParams
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { CommunityMember, requireCommunityMember } from "../identity/Policy.js"
import { ProfileService } from "../identity/ProfileService.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { requireFeature } from "../platform/FeatureGate.js"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { TenantSql } from "../platform/TenantSql.js"
import { OrganisationAccess } from "./OrganisationPolicy.js"
import { ReviewRepo, type ReviewRow, type ReviewTarget } from "./ReviewRepo.js"

const gate = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("volunteering"), effect)

export const reviewAlreadyExists = () =>
  new AlreadyExists({ message: "You have already reviewed this", field: "target_id" })

const unknownReviewer = (id: number): UserSummary => ({
  id: id as UserId,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

const toReview = (row: ReviewRow, reviewer: UserSummary | undefined) =>
  Review.make({
    id: Number(row.id) as ReviewId,
    reviewer_id: Number(row.reviewer_id) as UserId,
    reviewer: reviewer ?? unknownReviewer(Number(row.reviewer_id)),
    target_type: row.target_type,
    target_id: Number(row.target_id),
    rating: row.rating,
    comment: row.comment,
    approved: row.approved,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** Reviews of organisations and members (spec "Review"); gated on `volunteering`. */
export class ReviewsService extends Effect.Service<ReviewsService>()("ReviewsService", {
  dependencies: [
    ReviewRepo.Default,
    OrganisationAccess.Default,
    ProfileService.Default,
    UserSummaries.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ReviewRepo
    const organisations = yield* OrganisationAccess
    const profiles = yield* ProfileService
    const users = yield* UserSummaries
    const outbox = yield* Outbox

    /**
     * The target exists for the public: an active (or legacy `approved`) organisation, or a member, of this
     * community; anything else is 404.
     */
    const requireTarget = (target: ReviewTarget) =>
      target.type === "organization"
        ? Effect.flatMap(organisations.find(target.id), (row) =>
          isVisibleStatus(row.status) ? Effect.void : Effect.fail(NotFound.of("Organisation")))
        : Effect.asVoid(profiles.publicProfile(target.id))

    const views = (rows: ReadonlyArray<ReviewRow>) =>
      Effect.map(
        users.byIds(rows.map((r) => Number(r.reviewer_id))),
        (reviewers) => rows.map((row) => toReview(row, reviewers.get(Number(row.reviewer_id))))
      )

    const create = Effect.fn("Reviews.create")(
      function*(input: CreateReview) {
        const reviewer = yield* CommunityMember
        const target: ReviewTarget = { type: input.target_type, id: input.target_id }
        if (target.type === "user" && target.id === reviewer.userId) {
          return yield* ValidationFailed.field("target_id", "you cannot review yourself")
        }
        yield* requireTarget(target)
        if (yield* repo.exists(reviewer.userId, target)) return yield* reviewAlreadyExists()
        const row = yield* db.transaction(Effect.gen(function*() {
          const inserted = yield* repo.insert({
            reviewerId: reviewer.userId,
            target,
            rating: input.rating,
            comment: input.comment
          })
          if (Option.isNone(inserted)) return yield* reviewAlreadyExists()
          yield* outbox.append("ReviewCreated", {
            review_id: Number(inserted.value.id),
            reviewer_id: reviewer.userId,
            target_type: target.type,
            target_id: target.id,
            rating: inserted.value.rating
          })
          return inserted.value
        }))
        return (yield* views([row]))[0]!
      },
      requireCommunityMember("write reviews"),
      gate
    )

    /** One query for the page and one for its reviewers. */
    const list = Effect.fn("Reviews.list")(function*(path: ReviewTargetPath, params: VolunteeringPageParams) {
      const target: ReviewTarget = { type: path.type, id: path.id }
      yield* requireTarget(target)
      const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
      const rows = yield* repo.page({ target, before: params.cursor, limit: perPage + 1 })
      return yield* idCursorPage(rows, perPage, views)
    }, gate)

    return { create, list } as const
  })
}) {}
