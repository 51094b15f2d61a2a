import { Schema } from "effect"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"

export const ReviewId = RecordId.pipe(Schema.brand("ReviewId"))
export type ReviewId = typeof ReviewId.Type

/** What a review is about (spec "Review"; note the US spelling of `organization`). */
export const ReviewTargetType = Schema.Literal("organization", "user")
export type ReviewTargetType = typeof ReviewTargetType.Type

/** Spec "Limits": review rating 1 to 5, whole numbers. */
export const ReviewRating = Schema.Int.pipe(
  Schema.between(1, 5, { message: () => "must be a whole number from 1 to 5" })
).annotations({ description: "1 to 5" })

export const REVIEW_COMMENT_MAX = 2000
export const ReviewComment = Schema.Trim.pipe(
  Schema.maxLength(REVIEW_COMMENT_MAX, { message: () => `must be at most ${REVIEW_COMMENT_MAX} characters` })
)

/** A review of an organisation or a member. */
export class Review extends Schema.Class<Review>("Review")({
  id: ReviewId,
  reviewer_id: Schema.NullOr(UserId).annotations({ description: "Null for a partner community's member" }),
  reviewer: Schema.NullOr(UserSummary).annotations({
    description: "Who wrote it; null for a partner community's member (see `federated_reviewer`)"
  }),
  federated_reviewer: Schema.optionalWith(
    Schema.Struct({ name: Schema.String, partner_id: RecordId }),
    { exact: true }
  ).annotations({ description: "Only on reviews written by a partner community's member (federation)" }),
  target_type: ReviewTargetType,
  target_id: RecordId,
  rating: Schema.Int,
  comment: Schema.String,
  approved: Schema.Boolean.annotations({ description: "Stored true: there is no moderation queue" }),
  created_at: Schema.DateTimeUtc
}) {}

/** `POST /api/v2/volunteering/reviews`: one per reviewer and target; members may not review themselves. */
export const CreateReview = Schema.Struct({
  target_type: ReviewTargetType,
  target_id: RecordId.annotations({ description: "The organisation's or member's id" }),
  rating: ReviewRating,
  comment: Schema.optionalWith(ReviewComment, { default: () => "" })
})
export type CreateReview = typeof CreateReview.Type

/**
 * `/reviews/{type}/{id}`: an unknown `type` is a 422 on field `type` (not a 404); an id that is not a positive
 * integer names no record (404).
 */
export const ReviewTargetPath = Schema.Struct({
  type: ReviewTargetType.annotations({ description: "What is reviewed: an organisation or a member" }),
  id: PathId(RecordId)
})
export type ReviewTargetPath = typeof ReviewTargetPath.Type
