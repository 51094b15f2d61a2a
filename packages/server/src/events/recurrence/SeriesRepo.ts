import { Effect, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `event_series`. */
export const SeriesRow = Schema.Struct({
  id: DbInt,
  user_id: DbInt,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  created_at: DbDate
})
export type SeriesRow = typeof SeriesRow.Type

/** Standalone event series of the current tenant (`event_series`; events point at them with `series_id`). */
export class SeriesRepo extends Effect.Service<SeriesRepo>()("SeriesRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal("id, user_id, title, description, created_at")

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM event_series WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            decodeFirst(SeriesRow)
          )
        ),

      insert: (userId: number, title: string, description: string | null) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO event_series (tenant_id, user_id, title, description)
            VALUES (${tenantId}, ${userId}, ${title}, ${description})
            RETURNING ${columns}`.pipe(decodeSingle(SeriesRow))
        )
    } as const
  })
}) {}
