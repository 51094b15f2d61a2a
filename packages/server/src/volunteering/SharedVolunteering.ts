import { type CurrentTenant, type OpportunityId, type OrganisationId, ReviewId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { OpportunityRepo, type OpportunityRow } from "./OpportunityRepo.js"

/** A published review of a member as partners may see it; who wrote it is resolved by the caller. */
export const SharedReviewRow = Schema.Struct({
  id: dbId(ReviewId),
  target_id: DbInt,
  /** The local reviewer; null for a review a partner's member wrote. */
  reviewer_id: Schema.NullOr(DbInt),
  /** The partner member's name, for a federated review. */
  reviewer_name: Schema.NullOr(Schema.String),
  is_federated: Schema.Boolean,
  rating: DbInt,
  comment: Schema.String,
  created_at: DbDate
})
export type SharedReview = typeof SharedReviewRow.Type

/** An open opportunity of a visible organisation, as partners may see it. */
export interface SharedOpportunity {
  readonly id: OpportunityId
  readonly title: string
  readonly description: string
  readonly location: string | null
  readonly organisation: { readonly id: OrganisationId; readonly name: string }
  readonly created_at: Date
  readonly updated_at: Date
}

const reviews = decodeRows(SharedReviewRow)

const toOpportunity = (row: OpportunityRow): SharedOpportunity => ({
  id: row.id,
  title: row.title,
  description: row.description,
  location: row.location,
  organisation: { id: row.organisation_id, name: row.organisation_name },
  created_at: row.created_at,
  updated_at: row.updated_at
})

/** Volunteering's published read for federation (decisions D13a): members' reviews and open opportunities. */
export class SharedVolunteering extends Effect.Service<SharedVolunteering>()("SharedVolunteering", {
  dependencies: [TenantSql.Default, OpportunityRepo.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const opportunities = yield* OpportunityRepo

    /**
     * Published (approved, not hidden) reviews of member `memberId`, local and federated, newest first
     * (`reviews_target`).
     */
    const reviewsOf = (
      memberId: number,
      q: { readonly before?: number | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<SharedReview>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT id, target_id, reviewer_id, reviewer_name, is_federated, rating, comment, created_at FROM reviews
            WHERE tenant_id = ${tenantId} AND target_type = 'user' AND target_id = ${memberId} AND approved
              AND NOT is_hidden
              ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(reviews)
      )

    /**
     * Open opportunities of active (or approved) organisations, newest first, older than `before`; `limit` rows:
     * the public list's query (`vol_opportunities_public`).
     */
    const openOpportunities = (
      q: { readonly before?: number | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<SharedOpportunity>, never, CurrentTenant> =>
      Effect.map(opportunities.listOpen({ before: q.before, limit: q.limit }), (rows) => rows.map(toOpportunity))

    return { reviewsOf, openOpportunities } as const
  })
}) {}
