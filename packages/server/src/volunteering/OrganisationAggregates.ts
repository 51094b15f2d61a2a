import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, DbNumeric, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { forUniqueIds } from "./UniqueIds.js"

/** The spec's aggregates of one organisation ("Organisation": directory and detail). */
export interface OrganisationStats {
  readonly opportunity_count: number
  readonly volunteer_count: number
  readonly total_hours: number
  readonly average_rating: number | null
  readonly review_count: number
}

export const emptyStats: OrganisationStats = {
  opportunity_count: 0,
  volunteer_count: 0,
  total_hours: 0,
  average_rating: null,
  review_count: 0
}

/** Mean rating to 1 decimal (half up), as the spec asks; null without reviews. */
export const roundRating = (mean: number | null): number | null =>
  mean === null ? null : Math.round(mean * 10 + 1e-9) / 10

const statsRows = decodeRows(Schema.Struct({
  id: DbInt,
  opportunity_count: DbInt,
  volunteer_count: DbInt,
  total_hours: DbNumeric,
  average_rating: Schema.NullOr(DbNumeric),
  review_count: DbInt
}))

/**
 * Aggregates for a page of organisations in ONE query, however long the page: each aggregate is a grouped
 * subquery over the page's ids (indexes `vol_opportunities_organisation`, `vol_applications_organisation`,
 * `vol_hours_organisation`, `reviews_target`), joined back to the ids.
 */
export class OrganisationAggregates extends Effect.Service<OrganisationAggregates>()("OrganisationAggregates", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const forIds = forUniqueIds((ids) => {
      // One array parameter instead of IN lists: the statement text is the same for every page, so PostgreSQL
      // parses and plans one shape, however many ids the page has.
      const idArray = pgArray(ids)
      return db.query((tenantId) =>
        sql`
          SELECT ids.id,
                 coalesce(op.n, 0)::int AS opportunity_count,
                 coalesce(ap.n, 0)::int AS volunteer_count,
                 coalesce(h.total, 0) AS total_hours,
                 r.mean AS average_rating,
                 coalesce(r.n, 0)::int AS review_count
          FROM unnest(${idArray}::bigint[]) AS ids (id)
          LEFT JOIN (
            SELECT organisation_id, count(*) AS n FROM vol_opportunities
            WHERE tenant_id = ${tenantId} AND organisation_id = ANY(${idArray}::bigint[]) AND status = 'open'
            GROUP BY organisation_id
          ) op ON op.organisation_id = ids.id
          LEFT JOIN (
            SELECT organisation_id, count(DISTINCT user_id) AS n FROM vol_applications
            WHERE tenant_id = ${tenantId} AND organisation_id = ANY(${idArray}::bigint[]) AND status = 'approved'
            GROUP BY organisation_id
          ) ap ON ap.organisation_id = ids.id
          LEFT JOIN (
            SELECT organisation_id, sum(hours) AS total FROM vol_hours
            WHERE tenant_id = ${tenantId} AND organisation_id = ANY(${idArray}::bigint[]) AND status = 'approved'
            GROUP BY organisation_id
          ) h ON h.organisation_id = ids.id
          LEFT JOIN (
            SELECT target_id, count(*) AS n, avg(rating) AS mean FROM reviews
            WHERE tenant_id = ${tenantId} AND target_type = 'organization' AND target_id = ANY(${idArray}::bigint[])
              AND approved AND NOT is_hidden
            GROUP BY target_id
          ) r ON r.target_id = ids.id`.pipe(
          statsRows,
          Effect.map((rows) =>
            new Map(rows.map((row): [number, OrganisationStats] => [row.id, {
              opportunity_count: row.opportunity_count,
              volunteer_count: row.volunteer_count,
              total_hours: row.total_hours,
              average_rating: roundRating(row.average_rating),
              review_count: row.review_count
            }]))
          )
        )
        // No stack trace on the span (it runs for every page of organisations): capturing one cost more than the
        // rest of the span.
      ).pipe(
        Effect.withSpan("OrganisationAggregates.forIds", {
          attributes: { count: ids.length },
          captureStackTrace: false
        })
      )
    })

    return { forIds } as const
  })
}) {}
