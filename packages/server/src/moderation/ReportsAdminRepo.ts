import { ReportAction, ReportStatus, type ReportTargetType } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ReportRow } from "./ReportRepo.js"

/** A row of `member_reports` as admins see it: with what became of it. */
export const AdminReportRow = Schema.Struct({
  ...ReportRow.fields,
  resolution_action: Schema.NullOr(ReportAction),
  resolution_note: Schema.NullOr(Schema.String),
  resolved_by: Schema.NullOr(DbInt),
  resolved_at: Schema.NullOr(Schema.DateFromSelf)
})
export type AdminReportRow = typeof AdminReportRow.Type

const Count = Schema.Struct({ n: DbInt })
const Stats = Schema.Struct({
  open: DbInt,
  resolved: DbInt,
  dismissed: DbInt,
  safeguarding_open: DbInt,
  total: DbInt
})

export interface AdminReportQuery {
  readonly page: number
  readonly perPage: number
  readonly status?: ReportStatus | undefined
  readonly targetType?: ReportTargetType | undefined
  readonly safeguarding?: boolean | undefined
  readonly reporterId?: number | undefined
}

/** How an admin closes an open report. */
export interface ReportClosing {
  readonly status: Exclude<ReportStatus, "open">
  readonly action: ReportAction | null
  readonly note: string | null
  readonly adminId: number
}

/** Members' reports in the current tenant, as their admins list, count and close them (decisions D17). */
export class ReportsAdminRepo extends Effect.Service<ReportsAdminRepo>()("ReportsAdminRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(
      "id, reporter_id, target_type, target_id, reason, details, safeguarding, status, created_at, " +
        "resolution_action, resolution_note, resolved_by, resolved_at"
    )

    return {
      /** Reports newest first (indexes `member_reports_admin`, `_queue`, `_reporter`, `_safeguarding`). */
      list: (q: AdminReportQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.targetType !== undefined) conditions.push(sql`target_type = ${q.targetType}`)
          if (q.safeguarding !== undefined) conditions.push(q.safeguarding ? sql`safeguarding` : sql`NOT safeguarding`)
          if (q.reporterId !== undefined) conditions.push(sql`reporter_id = ${q.reporterId}`)
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT ${columns} FROM member_reports WHERE ${where}
                      ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(
              decodeRows(AdminReportRow)
            ),
            total: sql`SELECT count(*)::int AS n FROM member_reports WHERE ${where}`.pipe(
              decodeSingle(Count),
              Effect.map((r) => r.n)
            )
          }, { concurrency: 2 })
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM member_reports WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            decodeFirst(AdminReportRow)
          )
        ),

      /** Reports per state, counted in one pass over the community's reports. */
      stats: db.query((tenantId) =>
        sql`SELECT count(*) FILTER (WHERE status = 'open')::int AS open,
                   count(*) FILTER (WHERE status = 'resolved')::int AS resolved,
                   count(*) FILTER (WHERE status = 'dismissed')::int AS dismissed,
                   count(*) FILTER (WHERE status = 'open' AND safeguarding)::int AS safeguarding_open,
                   count(*)::int AS total
            FROM member_reports WHERE tenant_id = ${tenantId}`.pipe(decodeSingle(Stats))
      ),

      /** Closes the report if it is still open; none otherwise (another admin closed it first). */
      close: (id: number, closing: ReportClosing) =>
        db.query((tenantId) =>
          sql`UPDATE member_reports
              SET status = ${closing.status}, resolution_action = ${closing.action},
                  resolution_note = ${closing.note}, resolved_by = ${closing.adminId}, resolved_at = now()
              WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'open'
              RETURNING ${columns}`.pipe(decodeFirst(AdminReportRow))
        )
    } as const
  })
}) {}
