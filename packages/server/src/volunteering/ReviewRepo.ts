import { ReviewId, ReviewTargetType, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { PageQuery } from "./VolunteeringPage.js"

/** A row of `reviews`. */
export const ReviewRow = Schema.Struct({
  id: dbId(ReviewId),
  /** Null for a federated review (a partner community's member wrote it). */
  reviewer_id: Schema.NullOr(dbId(UserId)),
  target_type: ReviewTargetType,
  target_id: DbInt,
  rating: DbInt,
  comment: Schema.String,
  approved: Schema.Boolean,
  is_federated: Schema.Boolean,
  federation_partner_id: Schema.NullOr(DbInt),
  reviewer_name: Schema.NullOr(Schema.String),
  created_at: DbDate
})
export type ReviewRow = typeof ReviewRow.Type

const firstReview = decodeFirst(ReviewRow)
const reviews = decodeRows(ReviewRow)
const exists = decodeFirst(Schema.Struct({ id: DbInt }))

export interface ReviewTarget {
  readonly type: ReviewTargetType
  readonly id: number
}

export interface ReviewInsert {
  readonly reviewerId: number
  readonly target: ReviewTarget
  readonly rating: number
  readonly comment: string
}

/** A review by a partner community's member (federation): no local reviewer, the partner's names instead. */
export interface FederatedReviewInsert {
  readonly partnerId: number
  readonly reviewerName: string
  readonly reviewerExternalId: string
  readonly memberId: number
  readonly rating: number
  readonly comment: string
}

export interface ReviewPageQuery extends PageQuery {
  readonly target: ReviewTarget
}

/** Reviews of the current tenant's organisations and members. */
export class ReviewRepo extends Effect.Service<ReviewRepo>()("ReviewRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Whether the reviewer already reviewed the target (unique per reviewer, target and tenant). */
      exists: (reviewerId: number, target: ReviewTarget) =>
        db.query((tenantId) =>
          sql`
            SELECT id FROM reviews
            WHERE tenant_id = ${tenantId} AND reviewer_id = ${reviewerId}
              AND target_type = ${target.type} AND target_id = ${target.id}`.pipe(
            exists,
            Effect.map(Option.isSome)
          )
        ),

      /**
       * Inserts an approved review; none when the reviewer reviewed the target meanwhile (the unique index decides
       * a race that `exists` could not see).
       */
      insert: (review: ReviewInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO reviews ${
            sql.insert({
              tenant_id: tenantId,
              reviewer_id: review.reviewerId,
              target_type: review.target.type,
              target_id: review.target.id,
              rating: review.rating,
              comment: review.comment,
              approved: true
            })
          }
            ON CONFLICT (tenant_id, reviewer_id, target_type, target_id) DO NOTHING
            RETURNING *`.pipe(firstReview)
        ),

      /**
       * Inserts an approved federated review of a member; none when that partner's reviewer already reviewed them
       * (unique index `reviews_federated_reviewer`).
       */
      insertFederated: (review: FederatedReviewInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO reviews ${
            sql.insert({
              tenant_id: tenantId,
              reviewer_id: null,
              target_type: "user",
              target_id: review.memberId,
              rating: review.rating,
              comment: review.comment,
              approved: true,
              is_federated: true,
              federation_partner_id: review.partnerId,
              reviewer_name: review.reviewerName,
              reviewer_external_id: review.reviewerExternalId
            })
          }
            ON CONFLICT (tenant_id, federation_partner_id, reviewer_external_id, target_type, target_id)
              WHERE is_federated DO NOTHING
            RETURNING *`.pipe(firstReview)
        ),

      /** Approved reviews of a target that are not hidden, newest first (index `reviews_target`). */
      page: (q: ReviewPageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM reviews
            WHERE tenant_id = ${tenantId} AND target_type = ${q.target.type} AND target_id = ${q.target.id}
              AND approved AND NOT is_hidden ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(reviews)
        )
    } as const
  })
}) {}
