import {
  type BackgroundJob,
  type CronJob,
  type CronJobsHealth,
  type DeleteJobLogsParams,
  type JobHealth,
  type JobLogsParams,
  NotFound,
  offsetMeta
} from "@timebank/domain"
import { Clock, Config, DateTime, Duration, Effect, Option } from "effect"
import { type JobDefinition, JobRegistry } from "../../platform/JobRegistry.js"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { JobRunner } from "./JobRunner.js"
import { type JobRunRow, JobRunsRepo, toJobRun } from "./JobRunsRepo.js"
import { cronOf, healthOf, JobSchedules, nextRunOf } from "./JobSchedules.js"
import { JobSettingsRepo, type ScheduleRow } from "./JobSettingsRepo.js"

const DEFAULT_PER_PAGE = 20

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** One job as this community sees it: its schedule in force, its switch here and its latest run here. */
export interface JobState {
  readonly job: JobDefinition
  readonly record: ScheduleRow | undefined
  readonly schedule: string | null
  readonly enabled: boolean
  readonly lastRun: JobRunRow | undefined
}

/** A job asked for by name: unknown names are 404. */
export const findJob = (registry: JobRegistry, id: string) =>
  Effect.flatMap(registry.find(id), (job) => job === undefined ? Effect.fail(NotFound.of("Job")) : Effect.succeed(job))

/**
 * The jobs as a community's admins see them (decisions D17 "Jobs"): every job, the scheduled ones with their
 * health, running one now for this community, and this community's run logs.
 */
export class JobsService extends Effect.Service<JobsService>()("JobsService", {
  dependencies: [
    JobRunner.Default,
    JobRunsRepo.Default,
    JobSettingsRepo.Default,
    JobSchedules.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const registry = yield* JobRegistry
    const runner = yield* JobRunner
    const runs = yield* JobRunsRepo
    const settings = yield* JobSettingsRepo
    const schedules = yield* JobSchedules
    const db = yield* TenantSql
    // How long a run asked for over HTTP is awaited before the answer is 202 (tests shorten it).
    const wait = yield* Config.duration("JOB_RUN_WAIT").pipe(Config.withDefault(Duration.seconds(30)), Effect.orDie)

    const states = Effect.gen(function*() {
      const tenantId = yield* db.tenantId
      const [jobs, records, switches, latest] = yield* Effect.all([
        registry.all,
        settings.schedules,
        settings.switches(tenantId),
        runs.latest(tenantId)
      ])
      const lastRuns = new Map(latest.map((run) => [run.job_id, run]))
      return jobs.map((job): JobState => {
        const record = records.get(job.id)
        return {
          job,
          record,
          schedule: schedules.effective(job, record),
          enabled: switches.get(job.id) ?? true,
          lastRun: lastRuns.get(job.id)
        }
      })
    })

    const lastRunOf = (state: JobState) => state.lastRun === undefined ? null : toJobRun(state.lastRun)

    const backgroundJobs = Effect.fn("Jobs.backgroundJobs")(function*() {
      yield* TenantAdmin
      return (yield* states).map((state): BackgroundJob => ({
        id: state.job.id,
        description: state.job.description,
        schedule: state.schedule,
        enabled: state.enabled,
        last_run: lastRunOf(state)
      }))
    }, requireTenantAdmin)

    /** The scheduled jobs (a schedule that does not parse counts as none). */
    const scheduled = Effect.gen(function*() {
      const at = yield* now
      return (yield* states).flatMap((state): Array<CronJob> => {
        const cron = state.schedule === null ? Option.none() : cronOf(state.schedule)
        if (Option.isNone(cron)) return []
        return [{
          id: state.job.id,
          schedule: state.schedule!,
          enabled: state.enabled,
          last_run: lastRunOf(state),
          last_pass_at: state.record?.last_run_at == null ? null : DateTime.unsafeFromDate(state.record.last_run_at),
          next_run: DateTime.unsafeFromDate(nextRunOf(cron.value, state.record, at)),
          health: healthOf({ enabled: state.enabled, lastRun: state.lastRun, record: state.record, now: at })
        }]
      })
    })

    const cronJobs = Effect.fn("Jobs.cronJobs")(function*() {
      yield* TenantAdmin
      return yield* scheduled
    }, requireTenantAdmin)

    const health = Effect.fn("Jobs.health")(function*() {
      yield* TenantAdmin
      const jobs = yield* scheduled
      const count = (health: JobHealth) => jobs.filter((job) => job.health === health).length
      return {
        ok: count("ok"),
        failing: count("failing"),
        stale: count("stale"),
        disabled: count("disabled"),
        jobs: jobs.map((job) => ({ id: job.id, health: job.health }))
      } satisfies CronJobsHealth
    }, requireTenantAdmin)

    /** Runs the job for this community; `finished` false when it was still running after the wait. */
    const run = Effect.fn("Jobs.run")(function*(jobId: string) {
      const admin = yield* TenantAdmin
      const job = yield* findJob(registry, jobId)
      const tenantId = yield* db.tenantId
      const started = yield* runner.start(job, tenantId, "manual", admin.userId)
      const ended = yield* Effect.timeoutOption(started.finished, wait)
      if (Option.isSome(ended)) return { run: toJobRun(ended.value), finished: true }
      const current = Option.getOrElse(yield* runs.find(tenantId, started.run.id), () => started.run)
      return { run: toJobRun(current), finished: current.status !== "running" }
    }, requireTenantAdmin)

    const logs = Effect.fn("Jobs.logs")(function*(params: JobLogsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_PER_PAGE)
      const { rows, total } = yield* runs.page(yield* db.tenantId, {
        jobId: params.job_id,
        status: params.status,
        limit: perPage,
        offset: (page - 1) * perPage
      })
      return { data: rows.map(toJobRun), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const log = Effect.fn("Jobs.log")(function*(id: number) {
      yield* TenantAdmin
      const row = yield* runs.find(yield* db.tenantId, id)
      return yield* Option.match(row, {
        onNone: () => Effect.fail(NotFound.of("Job run")),
        onSome: (found) => Effect.succeed(toJobRun(found))
      })
    }, requireTenantAdmin)

    const deleteLogs = Effect.fn("Jobs.deleteLogs")(function*(params: DeleteJobLogsParams) {
      yield* TenantAdmin
      const before = params.before === undefined ? undefined : DateTime.toDate(params.before)
      return { deleted: yield* runs.deleteFinished(yield* db.tenantId, before) }
    }, requireTenantAdmin)

    return { backgroundJobs, cronJobs, health, run, logs, log, deleteLogs } as const
  })
}) {}
