import { Effect, Option } from "effect"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `event_series`. */
export interface SeriesRow {
  readonly id: string
  readonly user_id: string
  readonly title: string
  readonly description: string | null
  readonly created_at: Date
}

/** Standalone event series of the current tenant (`event_series`; events point at them with `series_id`). */
export class SeriesRepo extends Effect.Service<SeriesRepo>()("SeriesRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql<SeriesRow>`SELECT id, user_id, title, description, created_at FROM event_series
            WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
        ),

      insert: (userId: number, title: string, description: string | null) =>
        db.query((tenantId) =>
          sql<SeriesRow>`
            INSERT INTO event_series (tenant_id, user_id, title, description)
            VALUES (${tenantId}, ${userId}, ${title}, ${description})
            RETURNING id, user_id, title, description, created_at`.pipe(Effect.map((rows) => rows[0]!))
        )
    } as const
  })
}) {}
