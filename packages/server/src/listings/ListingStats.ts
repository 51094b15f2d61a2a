import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DayCount, dayIndex, type DayRange, withinDays } from "../platform/DaySeries.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** Listings of the community not deleted: visible to members, and awaiting moderation. */
export interface ListingCounts {
  readonly active: number
  readonly pending: number
}

const Counts = Schema.Struct({ active: DbInt, pending: DbInt })

/** Aggregates of listings for the admin dashboard: one query per figure, over the listings indexes. */
export class ListingStats extends Effect.Service<ListingStats>()("ListingStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const counts: Effect.Effect<ListingCounts, never, CurrentTenant> = db.query((tenantId) =>
      sql`SELECT count(*) FILTER (WHERE status = 'active')::int AS active,
                 count(*) FILTER (WHERE status = 'pending')::int AS pending
          FROM listings WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`.pipe(decodeSingle(Counts))
    )

    /** Listings created per day of `range` (deleted ones too: they were created that day). */
    const createdPerDay = (range: DayRange): Effect.Effect<ReadonlyArray<DayCount>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${dayIndex(sql, "created_at", range)} AS day, count(*)::int AS n
            FROM listings WHERE tenant_id = ${tenantId} AND ${withinDays(sql, "created_at", range)}
            GROUP BY 1`.pipe(decodeRows(DayCount))
      )

    return { counts, createdPerDay } as const
  })
}) {}
