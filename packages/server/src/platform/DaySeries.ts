import type { SqlClient } from "@effect/sql"
import { Schema } from "effect"
import { pgArray } from "./SqlArrays.js"
import { DbInt, DbNumeric } from "./SqlRows.js"

/**
 * Consecutive calendar days of one time zone, as the instants that bound them: `starts[i]` is when day `i` begins
 * and `end` when the last one ends. The caller computes them in the community's zone, so days of 23 or 25 hours
 * (daylight saving) bound correctly and the database never has to know the zone's name.
 */
export interface DayRange {
  readonly starts: ReadonlyArray<Date>
  readonly end: Date
}

/** An instant interval, `from` included, `to` excluded. */
export interface Period {
  readonly from: Date
  readonly to: Date
}

/** A row of a per-day count: `day` is the index of the day in its range. */
export const DayCount = Schema.Struct({ day: DbInt, n: DbInt })
export type DayCount = typeof DayCount.Type

/** A row of a per-day count and sum. */
export const DaySum = Schema.Struct({ day: DbInt, n: DbInt, total: DbNumeric })
export type DaySum = typeof DaySum.Type

/**
 * SQL: the index of the day of `range` that `column` falls in, for a `GROUP BY 1` over rows that
 * {@link withinDays} kept. `width_bucket` over the day starts is 1 for the first day.
 */
export const dayIndex = (sql: SqlClient.SqlClient, column: string, range: DayRange) =>
  sql`width_bucket(${sql(column)}, ${pgArray(range.starts.map((d) => d.toISOString()))}::timestamptz[]) - 1`

/** SQL: `column` falls within `range` (a range condition an index on `(tenant_id, column)` serves). */
export const withinDays = (sql: SqlClient.SqlClient, column: string, range: DayRange) =>
  sql`${sql(column)} >= ${range.starts[0] ?? range.end} AND ${sql(column)} < ${range.end}`
