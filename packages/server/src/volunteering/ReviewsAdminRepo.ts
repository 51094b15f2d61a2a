import type { ReviewTargetType } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ReviewRow } from "./ReviewRepo.js"

/** A row of `reviews` with its moderation state. */
export const AdminReviewRow = Schema.Struct({
  ...ReviewRow.fields,
  is_flagged: Schema.Boolean,
  is_hidden: Schema.Boolean
})
export type AdminReviewRow = typeof AdminReviewRow.Type

const Count = Schema.Struct({ n: DbInt })
const firstReview = decodeFirst(AdminReviewRow)

export interface AdminReviewQuery {
  readonly page: number
  readonly perPage: number
  readonly targetType?: ReviewTargetType | undefined
  readonly targetId?: number | undefined
  readonly reviewerId?: number | undefined
  readonly isFlagged?: boolean | undefined
  readonly isHidden?: boolean | undefined
  readonly rating?: number | undefined
}

/** Every review of the current tenant for its moderators (decisions D17 "Moderation"). */
export class ReviewsAdminRepo extends Effect.Service<ReviewsAdminRepo>()("ReviewsAdminRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Reviews newest first (indexes `reviews_admin`, `reviews_target`, `reviews_reviewer`, `reviews_flagged`). */
      list: (q: AdminReviewQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`]
          if (q.targetType !== undefined) conditions.push(sql`target_type = ${q.targetType}`)
          if (q.targetId !== undefined) conditions.push(sql`target_id = ${q.targetId}`)
          if (q.reviewerId !== undefined) conditions.push(sql`reviewer_id = ${q.reviewerId}`)
          if (q.isFlagged !== undefined) conditions.push(q.isFlagged ? sql`is_flagged` : sql`NOT is_flagged`)
          if (q.isHidden !== undefined) conditions.push(q.isHidden ? sql`is_hidden` : sql`NOT is_hidden`)
          if (q.rating !== undefined) conditions.push(sql`rating = ${q.rating}`)
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT * FROM reviews WHERE ${where}
                      ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(
              decodeRows(AdminReviewRow)
            ),
            total: sql`SELECT count(*)::int AS n FROM reviews WHERE ${where}`.pipe(
              decodeSingle(Count),
              Effect.map((r) => r.n)
            )
          }, { concurrency: 2 })
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM reviews WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(firstReview)
        ),

      /** Removes the review; false when there was none. */
      remove: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM reviews WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        ),

      /** Flags the review; none when it is flagged already (or not this community's). */
      flag: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE reviews SET is_flagged = true
              WHERE tenant_id = ${tenantId} AND id = ${id} AND NOT is_flagged RETURNING *`.pipe(firstReview)
        ),

      /** Hides the review; none when it is hidden already (or not this community's). */
      hide: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE reviews SET is_hidden = true
              WHERE tenant_id = ${tenantId} AND id = ${id} AND NOT is_hidden RETURNING *`.pipe(firstReview)
        )
    } as const
  })
}) {}
