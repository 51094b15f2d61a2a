import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DayCount, dayIndex, type DayRange, withinDays } from "../platform/DaySeries.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** Members of the community by status (erased accounts left out); `suspended` includes banned members. */
export interface MemberCounts {
  readonly total: number
  readonly active: number
  readonly pending: number
  readonly suspended: number
}

const Counts = Schema.Struct({ total: DbInt, active: DbInt, pending: DbInt, suspended: DbInt })

/** Aggregates of identity for the admin dashboard: one query per figure, over the users indexes. */
export class MemberStats extends Effect.Service<MemberStats>()("MemberStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const counts: Effect.Effect<MemberCounts, never, CurrentTenant> = db.query((tenantId) =>
      sql`SELECT count(*)::int AS total,
                 count(*) FILTER (WHERE status = 'active')::int AS active,
                 count(*) FILTER (WHERE status = 'pending')::int AS pending,
                 count(*) FILTER (WHERE status IN ('suspended', 'banned'))::int AS suspended
          FROM users WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`.pipe(decodeSingle(Counts))
    )

    /** Accounts created per day of `range` (erased ones too: the day they joined stays in the history). */
    const joinedPerDay = (range: DayRange): Effect.Effect<ReadonlyArray<DayCount>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${dayIndex(sql, "created_at", range)} AS day, count(*)::int AS n
            FROM users WHERE tenant_id = ${tenantId} AND ${withinDays(sql, "created_at", range)}
            GROUP BY 1`.pipe(decodeRows(DayCount))
      )

    return { counts, joinedPerDay } as const
  })
}) {}
