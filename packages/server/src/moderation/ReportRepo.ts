import { ReportId, ReportStatus, ReportTargetType } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `member_reports` as its reporter sees it. */
export const ReportRow = Schema.Struct({
  id: dbId(ReportId),
  reporter_id: DbInt,
  target_type: ReportTargetType,
  target_id: DbInt,
  reason: Schema.String,
  details: Schema.NullOr(Schema.String),
  safeguarding: Schema.Boolean,
  status: ReportStatus,
  created_at: DbDate
})
export type ReportRow = typeof ReportRow.Type

export interface ReportInsert {
  readonly reporterId: number
  readonly targetType: ReportTargetType
  readonly targetId: number
  readonly reason: string
  readonly details: string | null
  readonly safeguarding: boolean
}

/** Members' reports in the current tenant. */
export class ReportRepo extends Effect.Service<ReportRepo>()("ReportRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(
      "id, reporter_id, target_type, target_id, reason, details, safeguarding, status, created_at"
    )

    return {
      /** An open report; call inside the transaction that records its events. */
      insert: (report: ReportInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO member_reports ${
            sql.insert({
              tenant_id: tenantId,
              reporter_id: report.reporterId,
              target_type: report.targetType,
              target_id: report.targetId,
              reason: report.reason,
              details: report.details,
              safeguarding: report.safeguarding
            })
          }
            RETURNING ${columns}`.pipe(decodeSingle(ReportRow))
        )
    } as const
  })
}) {}
