import {
  type Actor,
  Forbidden,
  type JobSetting,
  type JobSettingInput,
  type JobSettingsInput,
  parseCron,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Clock, Cron, Effect, Either } from "effect"
import { type JobDefinition, JobRegistry } from "../../platform/JobRegistry.js"
import { isPlatformAdmin, requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { JobSchedules } from "./JobSchedules.js"
import { JobSettingsRepo } from "./JobSettingsRepo.js"
import { findJob } from "./JobsService.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const scheduleForbidden = new Forbidden({ message: "Only platform super-admins may change a job's schedule" })

/** The next time a schedule gives, or none for a job on demand (or a schedule that does not parse). */
const nextOf = (schedule: string | null, at: Date): Date | null =>
  schedule === null ? null : Either.match(parseCron(schedule), { onLeft: () => null, onRight: (c) => Cron.next(c, at) })

/**
 * The jobs' settings: each community switches a job on or off for itself (tenant admins); the schedule is one for
 * every community and only platform super-admins change it (decisions D17).
 */
export class JobSettingsService extends Effect.Service<JobSettingsService>()("JobSettingsService", {
  dependencies: [JobSettingsRepo.Default, JobSchedules.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const registry = yield* JobRegistry
    const repo = yield* JobSettingsRepo
    const schedules = yield* JobSchedules
    const db = yield* TenantSql

    const settingsOf = (jobs: ReadonlyArray<JobDefinition>) =>
      Effect.gen(function*() {
        const [records, switches] = yield* Effect.all([repo.schedules, repo.switches(yield* db.tenantId)])
        return jobs.map((job): JobSetting => ({
          job_id: job.id,
          enabled: switches.get(job.id) ?? true,
          schedule: schedules.effective(job, records.get(job.id)),
          default_schedule: schedules.fallback(job)
        }))
      })

    /** Applies one job's change; the caller checked who may change what. */
    const apply = (actor: Actor, job: JobDefinition, input: JobSettingInput) =>
      Effect.gen(function*() {
        if (input.enabled !== undefined) yield* repo.setEnabled(yield* db.tenantId, job.id, input.enabled)
        if (input.schedule !== undefined) {
          const schedule = input.schedule ?? schedules.fallback(job)
          yield* repo.setSchedule(job.id, input.schedule, actor.userId, nextOf(schedule, yield* now))
        }
      })

    const mayChange = (actor: Actor, inputs: ReadonlyArray<JobSettingInput>) =>
      inputs.some((input) => input.schedule !== undefined) && !isPlatformAdmin(actor)
        ? Effect.fail(scheduleForbidden)
        : Effect.void

    const all = Effect.fn("JobSettings.all")(function*() {
      yield* TenantAdmin
      return yield* settingsOf(yield* registry.all)
    }, requireTenantAdmin)

    const one = Effect.fn("JobSettings.one")(function*(jobId: string) {
      yield* TenantAdmin
      const [setting] = yield* settingsOf([yield* findJob(registry, jobId)])
      return setting!
    }, requireTenantAdmin)

    const updateOne = Effect.fn("JobSettings.updateOne")(function*(jobId: string, input: JobSettingInput) {
      const actor = yield* TenantAdmin
      const job = yield* findJob(registry, jobId)
      yield* mayChange(actor, [input])
      yield* db.transaction(apply(actor, job, input))
      const [setting] = yield* settingsOf([job])
      return setting!
    }, requireTenantAdmin)

    /** Several jobs at once, all or none: unknown jobs are 422 `jobs.N.job_id`. */
    const updateMany = Effect.fn("JobSettings.updateMany")(function*(input: JobSettingsInput) {
      const actor = yield* TenantAdmin
      const found = yield* Effect.forEach(input.jobs, (change) => registry.find(change.job_id))
      const unknown = input.jobs.flatMap((change, i): Array<ValidationIssue> =>
        found[i] === undefined ? [{ field: `jobs.${i}.job_id`, message: `no job ${change.job_id}` }] : []
      )
      if (Arr.isNonEmptyArray(unknown)) return yield* new ValidationFailed({ issues: unknown })
      yield* mayChange(actor, input.jobs)
      yield* db.transaction(
        Effect.forEach(input.jobs, (change, i) => apply(actor, found[i]!, change), { discard: true })
      )
      return yield* settingsOf(yield* registry.all)
    }, requireTenantAdmin)

    return { all, one, updateOne, updateMany } as const
  })
}) {}
