import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DayCount, dayIndex, type DayRange, withinDays } from "../platform/DaySeries.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const Count = Schema.Struct({ n: DbInt })

/** Aggregates of member reports for the admin dashboard: one query per figure, over the reports indexes. */
export class ReportStats extends Effect.Service<ReportStats>()("ReportStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Reports neither resolved nor dismissed. */
    const open: Effect.Effect<number, never, CurrentTenant> = db.query((tenantId) =>
      sql`SELECT count(*)::int AS n FROM member_reports WHERE tenant_id = ${tenantId} AND status = 'open'`.pipe(
        decodeSingle(Count),
        Effect.map((row) => row.n)
      )
    )

    /** Reports filed per day of `range`, whatever became of them. */
    const openedPerDay = (range: DayRange): Effect.Effect<ReadonlyArray<DayCount>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${dayIndex(sql, "created_at", range)} AS day, count(*)::int AS n
            FROM member_reports WHERE tenant_id = ${tenantId} AND ${withinDays(sql, "created_at", range)}
            GROUP BY 1`.pipe(decodeRows(DayCount))
      )

    return { open, openedPerDay } as const
  })
}) {}
