import { RecordId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of the audit trail (the table is platform's: the audit middleware writes it, this feature reads it). */
export const AuditRow = Schema.Struct({
  id: dbId(RecordId),
  actor_id: Schema.NullOr(DbInt),
  action: Schema.String,
  target_type: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: DbDate
})
export type AuditRow = typeof AuditRow.Type

/** A domain event of the tenant as the dashboard shows it: its type and time, never its payload. */
export const EventRow = Schema.Struct({ id: dbId(RecordId), event_type: Schema.String, created_at: DbDate })
export type EventRow = typeof EventRow.Type

/** A bound of the time filter; a whole day (`to=2024-05-01`) ends before the next one starts. */
export interface TimeBound {
  readonly at: Date
  readonly inclusive: boolean
}

export interface AuditQuery {
  readonly page: number
  readonly perPage: number
  readonly actorId: number | undefined
  readonly action: string | undefined
  readonly targetType: string | undefined
  readonly from: Date | undefined
  readonly to: TimeBound | undefined
}

const auditRows = decodeRows(AuditRow)
const eventRows = decodeRows(EventRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

/** The current tenant's audit trail and latest domain events; every query is one index range of the tenant. */
export class ActivityRepo extends Effect.Service<ActivityRepo>()("ActivityRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const columns = sql`id, actor_id, action, target_type, target_id, details, created_at`

    return {
      /** One page of entries, newest first, and how many match. */
      list: (q: AuditQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`]
          if (q.actorId !== undefined) conditions.push(sql`actor_id = ${q.actorId}`)
          if (q.action !== undefined) conditions.push(sql`action = ${q.action}`)
          if (q.targetType !== undefined) conditions.push(sql`target_type = ${q.targetType}`)
          if (q.from !== undefined) conditions.push(sql`created_at >= ${q.from}`)
          if (q.to !== undefined) {
            conditions.push(q.to.inclusive ? sql`created_at <= ${q.to.at}` : sql`created_at < ${q.to.at}`)
          }
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT ${columns} FROM admin_audit_log WHERE ${where}
              ORDER BY created_at DESC, id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(auditRows),
            total: sql`SELECT count(*)::int AS n FROM admin_audit_log WHERE ${where}`.pipe(
              count,
              Effect.map((row) => row.n)
            )
          }, { concurrency: 2 })
        }),

      /** The latest `limit` entries. */
      latest: (limit: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM admin_audit_log WHERE tenant_id = ${tenantId}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(auditRows)
        ),

      /**
       * The tenant's latest `limit` domain events from the outbox, newest first by time like the entries (ids of
       * concurrent transactions need not follow their times), so that merging both lists gives the latest of all.
       */
      latestEvents: (limit: number) =>
        db.query((tenantId) =>
          sql`SELECT id, event_type, created_at FROM outbox_events WHERE tenant_id = ${tenantId}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(eventRows)
        )
    } as const
  })
}) {}
