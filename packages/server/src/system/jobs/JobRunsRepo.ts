import { SqlClient } from "@effect/sql"
import { type JobRun, JobRunStatus, JobTrigger } from "@timebank/domain"
import { DateTime, Effect, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

export const JobRunRow = Schema.Struct({
  id: DbInt,
  job_id: Schema.String,
  tenant_id: Schema.NullOr(DbInt),
  trigger: JobTrigger,
  status: JobRunStatus,
  started_at: DbDate,
  finished_at: Schema.NullOr(DbDate),
  items: DbInt,
  error: Schema.NullOr(Schema.String),
  requested_by: Schema.NullOr(DbInt)
})
export type JobRunRow = typeof JobRunRow.Type

export const toJobRun = (row: JobRunRow): JobRun => ({
  id: row.id,
  job_id: row.job_id,
  trigger: row.trigger,
  started_at: DateTime.unsafeFromDate(row.started_at),
  finished_at: row.finished_at === null ? null : DateTime.unsafeFromDate(row.finished_at),
  status: row.status,
  items: row.items,
  error: row.error
})

export interface NewRun {
  readonly jobId: string
  readonly tenantId: number
  readonly trigger: JobTrigger
  readonly requestedBy: number | null
  readonly startedAt: Date
}

export interface RunEnd {
  readonly status: "succeeded" | "failed"
  readonly items: number
  readonly error: string | null
  readonly finishedAt: Date
}

export interface RunFilter {
  readonly jobId: string | undefined
  readonly status: JobRunStatus | undefined
  readonly limit: number
  readonly offset: number
}

const Count = Schema.Struct({ n: DbInt })

/**
 * The runs of the jobs. Every statement names its community: runs start outside requests (the scheduler, the
 * command line) as well as inside them, and the routes pass the request's tenant.
 */
export class JobRunsRepo extends Effect.Service<JobRunsRepo>()("JobRunsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = decodeFirst(JobRunRow)
    const all = decodeRows(JobRunRow)

    return {
      /** A `running` row, unless this job already has one for this tenant (on any runner): then none. */
      start: (run: NewRun) =>
        sql`
          INSERT INTO job_runs (job_id, tenant_id, trigger, status, started_at, requested_by)
          VALUES (${run.jobId}, ${run.tenantId}, ${run.trigger}, 'running', ${run.startedAt}, ${run.requestedBy})
          ON CONFLICT (job_id, tenant_id) WHERE status = 'running' DO NOTHING
          RETURNING *`.pipe(first, dieOnSqlError),

      running: (jobId: string, tenantId: number) =>
        sql`SELECT * FROM job_runs WHERE job_id = ${jobId} AND tenant_id = ${tenantId} AND status = 'running'`.pipe(
          first,
          dieOnSqlError
        ),

      finish: (id: number, end: RunEnd) =>
        sql`
          UPDATE job_runs SET status = ${end.status}, items = ${end.items}, error = ${end.error},
            finished_at = ${end.finishedAt}
          WHERE id = ${id}
          RETURNING *`.pipe(decodeSingle(JobRunRow), dieOnSqlError),

      /** Ends a run that was stopped, if it is still running. */
      interrupted: (id: number, at: Date) =>
        sql`UPDATE job_runs SET status = 'failed', error = 'interrupted', finished_at = ${at}
          WHERE id = ${id} AND status = 'running'`.pipe(Effect.asVoid, dieOnSqlError),

      /** Forgets a scheduled run that found nothing to do. */
      forget: (id: number) => sql`DELETE FROM job_runs WHERE id = ${id}`.pipe(Effect.asVoid, dieOnSqlError),

      find: (tenantId: number, id: number) =>
        sql`SELECT * FROM job_runs WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(first, dieOnSqlError),

      /** Each job's latest run for the tenant. */
      latest: (tenantId: number) =>
        sql`
          SELECT DISTINCT ON (job_id) * FROM job_runs
          WHERE tenant_id = ${tenantId}
          ORDER BY job_id, started_at DESC, id DESC`.pipe(all, dieOnSqlError),

      page: (tenantId: number, filter: RunFilter) => {
        const where = sql.and([
          sql`tenant_id = ${tenantId}`,
          ...(filter.jobId === undefined ? [] : [sql`job_id = ${filter.jobId}`]),
          ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`])
        ])
        return Effect.all({
          rows: sql`SELECT * FROM job_runs WHERE ${where}
            ORDER BY started_at DESC, id DESC LIMIT ${filter.limit} OFFSET ${filter.offset}`.pipe(all),
          total: sql`SELECT count(*)::int AS n FROM job_runs WHERE ${where}`.pipe(
            decodeSingle(Count),
            Effect.map((row) => row.n)
          )
        }).pipe(dieOnSqlError)
      },

      /** Deletes the tenant's finished runs (started before `before`, when given); answers how many. */
      deleteFinished: (tenantId: number, before: Date | undefined) =>
        sql`
          WITH deleted AS (
            DELETE FROM job_runs
            WHERE tenant_id = ${tenantId} AND status <> 'running'
              ${before === undefined ? sql`` : sql`AND started_at < ${before}`}
            RETURNING 1)
          SELECT count(*)::int AS n FROM deleted`.pipe(decodeSingle(Count), Effect.map((row) => row.n), dieOnSqlError),

      /** Runs left `running` since before `startedBefore` (their process died): failed, and answers how many. */
      failAbandoned: (startedBefore: Date, at: Date) =>
        sql`
          UPDATE job_runs SET status = 'failed', finished_at = ${at},
            error = 'abandoned: the process running it stopped'
          WHERE status = 'running' AND started_at < ${startedBefore}
          RETURNING id`.pipe(Effect.map((rows) => rows.length), dieOnSqlError)
    } as const
  })
}) {}
