import { SqlClient } from "@effect/sql"
import { JobRunStatus } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, DbInt, decodeRows } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

/** The scheduler's record of a job (one row for every community): a super-admin's schedule and the last pass. */
export const ScheduleRow = Schema.Struct({
  job_id: Schema.String,
  schedule: Schema.NullOr(Schema.String),
  last_run_at: Schema.NullOr(DbDate),
  last_finished_at: Schema.NullOr(DbDate),
  last_status: Schema.NullOr(JobRunStatus),
  last_error: Schema.NullOr(Schema.String),
  next_run_at: Schema.NullOr(DbDate)
})
export type ScheduleRow = typeof ScheduleRow.Type

const SwitchRow = Schema.Struct({ job_id: Schema.String, enabled: Schema.Boolean })
const TenantRow = Schema.Struct({ tenant_id: DbInt })

/** `job_schedules` (platform-wide) and `job_tenant_settings` (a community's switch per job; absent = enabled). */
export class JobSettingsRepo extends Effect.Service<JobSettingsRepo>()("JobSettingsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const upsert = (jobId: string, fields: Record<string, unknown>) =>
      sql`
        INSERT INTO job_schedules ${sql.insert({ job_id: jobId, ...fields, updated_at: new Date() })}
        ON CONFLICT (job_id) DO UPDATE SET ${sql.update({ ...fields, updated_at: new Date() })}`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    return {
      schedules: sql`SELECT job_id, schedule, last_run_at, last_finished_at, last_status, last_error, next_run_at
        FROM job_schedules`.pipe(
        decodeRows(ScheduleRow),
        Effect.map((rows) => new Map(rows.map((row) => [row.job_id, row]))),
        dieOnSqlError
      ),

      /** A super-admin's schedule (null: back to the default) and the next run it gives. */
      setSchedule: (jobId: string, schedule: string | null, updatedBy: number, next: Date | null) =>
        upsert(jobId, { schedule, updated_by: updatedBy, next_run_at: next }),

      planNext: (jobId: string, next: Date | null) => upsert(jobId, { next_run_at: next }),

      passStarted: (jobId: string, at: Date, next: Date) =>
        upsert(jobId, { last_run_at: at, last_status: "running", next_run_at: next }),

      passFinished: (jobId: string, at: Date, status: "succeeded" | "failed", error: string | null) =>
        upsert(jobId, { last_finished_at: at, last_status: status, last_error: error }),

      /** The tenant's switches that exist (jobs without one are enabled). */
      switches: (tenantId: number) =>
        sql`SELECT job_id, enabled FROM job_tenant_settings WHERE tenant_id = ${tenantId}`.pipe(
          decodeRows(SwitchRow),
          Effect.map((rows) => new Map(rows.map((row) => [row.job_id, row.enabled]))),
          dieOnSqlError
        ),

      disabledTenants: (jobId: string) =>
        sql`SELECT tenant_id FROM job_tenant_settings WHERE job_id = ${jobId} AND NOT enabled`.pipe(
          decodeRows(TenantRow),
          Effect.map((rows) => new Set(rows.map((row) => row.tenant_id))),
          dieOnSqlError
        ),

      setEnabled: (tenantId: number, jobId: string, enabled: boolean) =>
        sql`
          INSERT INTO job_tenant_settings (tenant_id, job_id, enabled) VALUES (${tenantId}, ${jobId}, ${enabled})
          ON CONFLICT (tenant_id, job_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`.pipe(
          Effect.asVoid,
          dieOnSqlError
        )
    } as const
  })
}) {}
