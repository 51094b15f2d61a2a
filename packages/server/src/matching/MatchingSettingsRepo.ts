import { Effect, Schema } from "effect"
import { DbNumeric, decodeFirst } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `matching_settings`: the configuration beyond the weights. */
export const MatchingSettingsRow = Schema.Struct({ min_score: DbNumeric, approval_required: Schema.Boolean })
export type MatchingSettingsRow = typeof MatchingSettingsRow.Type

/** The community's matching settings (absent = the defaults). */
export class MatchingSettingsRepo extends Effect.Service<MatchingSettingsRepo>()("MatchingSettingsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const find = db.query((tenantId) =>
      sql`SELECT min_score, approval_required FROM matching_settings WHERE tenant_id = ${tenantId}`.pipe(
        decodeFirst(MatchingSettingsRow)
      )
    )

    const save = (settings: MatchingSettingsRow, actorId: number) =>
      db.query((tenantId) =>
        sql`INSERT INTO matching_settings (tenant_id, min_score, approval_required, updated_by)
            VALUES (${tenantId}, ${settings.min_score}, ${settings.approval_required}, ${actorId})
            ON CONFLICT (tenant_id) DO UPDATE SET min_score = EXCLUDED.min_score,
              approval_required = EXCLUDED.approval_required, updated_by = EXCLUDED.updated_by, updated_at = now()`
      ).pipe(Effect.asVoid)

    return { find, save } as const
  })
}) {}
