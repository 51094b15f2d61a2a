import type { CurrentTenant, TransactionType } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { dayIndex, type DayRange, DaySum, type Period, withinDays } from "../platform/DaySeries.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, DbNumeric, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/**
 * What counts as an exchange between members of the community: transfers and the payments organisers make to
 * checked-in attendees. Grants and payouts (treasury), deposits and auto-pay (organisation wallets), adjustments
 * and federated transfers (another community's member) are not (decisions D17, funder hours).
 */
export const EXCHANGE_TYPES: ReadonlyArray<TransactionType> = ["transfer", "checkin"]

/** How many exchanges, and the hours they moved. */
export interface ExchangeTotals {
  readonly count: number
  readonly hours: number
}

const Totals = Schema.Struct({ n: DbInt, total: DbNumeric })

/** Aggregates of the ledger for the admin dashboard: one query per figure, over `(tenant_id, type, created_at)`. */
export class LedgerStats extends Effect.Service<LedgerStats>()("LedgerStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const exchange = sql`type = ANY(${pgArray(EXCHANGE_TYPES)}::text[])`

    /** Exchanges posted in `period`. */
    const exchanges = (period: Period): Effect.Effect<ExchangeTotals, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT count(*)::int AS n, COALESCE(sum(amount), 0) AS total
            FROM ledger_transactions
            WHERE tenant_id = ${tenantId} AND ${exchange}
              AND created_at >= ${period.from} AND created_at < ${period.to}`.pipe(
          decodeSingle(Totals),
          Effect.map((row) => ({ count: row.n, hours: row.total }))
        )
      )

    /** Exchanges and their hours per day of `range`. */
    const exchangesPerDay = (range: DayRange): Effect.Effect<ReadonlyArray<DaySum>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${dayIndex(sql, "created_at", range)} AS day, count(*)::int AS n, sum(amount) AS total
            FROM ledger_transactions
            WHERE tenant_id = ${tenantId} AND ${exchange} AND ${withinDays(sql, "created_at", range)}
            GROUP BY 1`.pipe(decodeRows(DaySum))
      )

    return { exchanges, exchangesPerDay } as const
  })
}) {}
