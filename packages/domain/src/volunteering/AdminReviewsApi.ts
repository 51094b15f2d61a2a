import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { BooleanParam, FilterId, ModerationStateConflict } from "../moderation/ModerationParams.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Review, ReviewId, ReviewTargetType } from "./Review.js"

/** A review as admins see it: with its moderation state (decisions D17 "Moderation"). */
export class AdminReview extends Review.extend<AdminReview>("AdminReview")({
  is_flagged: Schema.Boolean.annotations({ description: "Flagged for a closer look; it stays public until hidden" }),
  is_hidden: Schema.Boolean.annotations({
    description: "Hidden by a moderator: gone from every list, count and average members see"
  })
}) {}

const RatingParam = Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 5)).annotations({
  description: "1 to 5"
})

/** `GET /api/v2/admin/reviews`: every review of the community, newest first. */
export const AdminReviewsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  target_type: Schema.optional(ReviewTargetType).annotations({
    description: "Only reviews of organisations or members"
  }),
  target_id: Schema.optional(FilterId).annotations({ description: "Only reviews of this organisation or member" }),
  reviewer_id: Schema.optional(FilterId).annotations({ description: "Only this member's reviews" }),
  is_flagged: Schema.optional(BooleanParam).annotations({ description: "Only flagged reviews, or only others" }),
  is_hidden: Schema.optional(BooleanParam).annotations({ description: "Only hidden reviews, or only visible ones" }),
  rating: Schema.optional(RatingParam).annotations({ description: "Only reviews with this rating" })
})
export type AdminReviewsParams = typeof AdminReviewsParams.Type

export const ReviewIdPath = Schema.Struct({ id: PathId(ReviewId) })

export const ReviewDeleted = Schema.Struct({ id: ReviewId, deleted: Schema.Literal(true) })

const REVIEWS = "/api/v2/admin/reviews"

/** Review moderation (decisions D17 "Moderation"); not gated on `volunteering` or the `reviews` module. */
export class AdminReviewsApi extends HttpApiGroup.make("adminReviews")
  .annotate(OpenApi.Title, "Admin: reviews")
  .annotate(
    OpenApi.Description,
    "Every review of the community's organisations and members: flag one for a closer look, hide or delete it"
  )
  .add(
    HttpApiEndpoint.get("list", REVIEWS)
      .annotate(OpenApi.Summary, "List reviews")
      .setUrlParams(AdminReviewsParams)
      .addSuccess(OffsetPage(AdminReview))
      .annotate(
        OpenApi.Description,
        "Every review (hidden, flagged and federated ones included), newest first; filters target, reviewer, " +
          "flagged, hidden, rating"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${REVIEWS}/:id`)
      .annotate(OpenApi.Summary, "Get a review")
      .setPath(ReviewIdPath)
      .addSuccess(DataEnvelope(AdminReview))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Any review of the community, with its moderation state")
  )
  .add(
    HttpApiEndpoint.del("delete", `${REVIEWS}/:id`)
      .annotate(OpenApi.Summary, "Delete a review")
      .annotate(AuditAction, "review.deleted")
      .setPath(ReviewIdPath)
      .addSuccess(DataEnvelope(ReviewDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the review for good; its reviewer may review the target again")
  )
  .add(
    HttpApiEndpoint.post("flag", `${REVIEWS}/:id/flag`)
      .annotate(OpenApi.Summary, "Flag a review")
      .annotate(AuditAction, "review.flagged")
      .setPath(ReviewIdPath)
      .addSuccess(DataEnvelope(AdminReview))
      .addError(httpError(NotFound))
      .addError(httpError(ModerationStateConflict))
      .annotate(
        OpenApi.Description,
        "Marks it for a closer look; members still see it until it is hidden. Flagged already → 409 `INVALID_STATE`"
      )
  )
  .add(
    HttpApiEndpoint.post("hide", `${REVIEWS}/:id/hide`)
      .annotate(OpenApi.Summary, "Hide a review")
      .annotate(AuditAction, "review.hidden")
      .setPath(ReviewIdPath)
      .addSuccess(DataEnvelope(AdminReview))
      .addError(httpError(NotFound))
      .addError(httpError(ModerationStateConflict))
      .annotate(
        OpenApi.Description,
        "Takes it out of every review list, count and average at once (it stays here for admins); hidden already " +
          "→ 409 `INVALID_STATE`"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
