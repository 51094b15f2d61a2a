import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DayCount, dayIndex, type DayRange, withinDays } from "../platform/DaySeries.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const Count = Schema.Struct({ n: DbInt })

/**
 * Aggregates of events for the admin dashboard, over `events_tenant_start`. An event counts when it is not
 * cancelled and is not a recurring series' template (its occurrences are the events members attend).
 */
export class EventStats extends Effect.Service<EventStats>()("EventStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const counted = sql`status = 'active' AND NOT is_recurring_template`

    /** Events that start at `now` or later. */
    const upcoming = (now: Date): Effect.Effect<number, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT count(*)::int AS n FROM events
            WHERE tenant_id = ${tenantId} AND start_time >= ${now} AND ${counted}`.pipe(
          decodeSingle(Count),
          Effect.map((row) => row.n)
        )
      )

    /** Events starting per day of `range`. */
    const startingPerDay = (range: DayRange): Effect.Effect<ReadonlyArray<DayCount>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${dayIndex(sql, "start_time", range)} AS day, count(*)::int AS n
            FROM events WHERE tenant_id = ${tenantId} AND ${withinDays(sql, "start_time", range)} AND ${counted}
            GROUP BY 1`.pipe(decodeRows(DayCount))
      )

    return { upcoming, startingPerDay } as const
  })
}) {}
