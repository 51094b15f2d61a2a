import type { ReviewTargetType } from "@timebank/domain"
import { Effect, Option } from "effect"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `reviews`. */
export interface ReviewRow {
  readonly id: string
  readonly tenant_id: string
  readonly reviewer_id: string
  readonly target_type: ReviewTargetType
  readonly target_id: string
  readonly rating: number
  readonly comment: string
  readonly approved: boolean
  readonly created_at: Date
}

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

export interface ReviewPageQuery {
  readonly target: ReviewTarget
  /** Only reviews older than this id (the cursor). */
  readonly before?: number | undefined
  /** Rows to fetch: one more than the page, to know whether there is more. */
  readonly limit: number
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
          sql<{ id: string }>`
            SELECT id FROM reviews
            WHERE tenant_id = ${tenantId} AND reviewer_id = ${reviewerId}
              AND target_type = ${target.type} AND target_id = ${target.id}`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        ),

      /**
       * Inserts an approved review; none when the reviewer reviewed the target meanwhile (the unique index decides
       * a race that `exists` could not see).
       */
      insert: (review: ReviewInsert) =>
        db.query((tenantId) =>
          sql<ReviewRow>`
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
            RETURNING *`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
        ),

      /** Approved reviews of a target, newest first (index `reviews_target`). */
      page: (q: ReviewPageQuery) =>
        db.query((tenantId) =>
          sql<ReviewRow>`
            SELECT * FROM reviews
            WHERE tenant_id = ${tenantId} AND target_type = ${q.target.type} AND target_id = ${q.target.id}
              AND approved ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC LIMIT ${q.limit}`
        )
    } as const
  })
}) {}
