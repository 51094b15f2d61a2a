import { Singleton } from "@effect/cluster"
import { Cause, Clock, Config, Cron, Effect, FiberSet, Layer, Option } from "effect"
import { type JobDefinition, JobRegistry } from "../../platform/JobRegistry.js"
import { TenantService } from "../../tenancy/index.js"
import { JobRunner } from "./JobRunner.js"
import { cronOf, JobSchedules } from "./JobSchedules.js"
import { JobSettingsRepo, type ScheduleRow } from "./JobSettingsRepo.js"

/** A run still `running` after this long belongs to a process that died. */
const ABANDONED_AFTER_MS = 15 * 60_000
const MAX_PASS_ERROR = 1000

/** What the scheduler plans for one job: the schedule it read and the next time it is due. */
interface Plan {
  readonly schedule: string
  readonly cron: Cron.Cron
  next: Date
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const caught = (what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(
    effect,
    (cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError(what, cause)
  )

/**
 * The jobs' scheduler, one runner at a time (a cluster singleton). Every second it reads each registered job's
 * schedule; a job that is due runs for every active community that did not switch it off, one community after the
 * other, in a fiber of its own (a slow job never holds back another; a job still busy with its last pass waits for
 * the next due time). It also fails the runs a dead process left `running`.
 */
const scheduler = Effect.gen(function*() {
  const registry = yield* JobRegistry
  const runner = yield* JobRunner
  const schedules = yield* JobSchedules
  const settings = yield* JobSettingsRepo
  const tenants = yield* TenantService
  const passes = yield* FiberSet.make()
  const plans = new Map<string, Plan>()
  const busy = new Set<string>()
  const badSchedules = new Set<string>()

  const pass = (job: JobDefinition, at: Date, next: Date) =>
    Effect.gen(function*() {
      yield* settings.passStarted(job.id, at, next)
      const disabled = yield* settings.disabledTenants(job.id)
      const active = (yield* tenants.list).filter((t) => t.status === "active" && !disabled.has(t.id))
      const failures: Array<string> = []
      for (const tenant of active) {
        const outcome = yield* runner.runScheduled(job, tenant.id, at)
        if (outcome._tag === "Done" && outcome.status === "failed") {
          failures.push(`tenant ${tenant.id}: ${outcome.error}`)
        }
      }
      const error = failures.length === 0
        ? null
        : `${failures.length} of ${active.length} communities failed; ${failures[0]}`.slice(0, MAX_PASS_ERROR)
      yield* settings.passFinished(job.id, yield* now, failures.length === 0 ? "succeeded" : "failed", error)
    }).pipe(
      caught(`scheduled pass of ${job.id} failed`),
      Effect.ensuring(Effect.sync(() => busy.delete(job.id)))
    )

  /** The job's plan for its schedule; a new or changed schedule starts from the stored next run when it fits. */
  const planFor = (job: JobDefinition, schedule: string, record: ScheduleRow | undefined, at: Date) =>
    Effect.gen(function*() {
      const known = plans.get(job.id)
      if (known !== undefined && known.schedule === schedule) return Option.some(known)
      const cron = cronOf(schedule)
      if (Option.isNone(cron)) {
        if (!badSchedules.has(job.id)) yield* Effect.logError(`job ${job.id}: schedule "${schedule}" does not parse`)
        badSchedules.add(job.id)
        return Option.none()
      }
      const stored = record?.next_run_at ?? null
      // After a handover the plan stands (a run missed meanwhile runs at once); a changed schedule plans anew.
      const next = known === undefined && stored !== null && Cron.match(cron.value, stored)
        ? stored
        : Cron.next(cron.value, at)
      const plan: Plan = { schedule, cron: cron.value, next }
      plans.set(job.id, plan)
      if (stored?.getTime() !== next.getTime()) yield* settings.planNext(job.id, next)
      return Option.some(plan)
    })

  const tick = Effect.gen(function*() {
    const at = yield* now
    // Cheap when there is nothing to do: the statement reads only the `running` rows (a partial index).
    const abandoned = yield* runner.failAbandoned(new Date(at.getTime() - ABANDONED_AFTER_MS), at)
    if (abandoned > 0) {
      yield* Effect.logWarning("job runs abandoned by a stopped process marked failed").pipe(
        Effect.annotateLogs({ runs: abandoned })
      )
    }
    const records = yield* settings.schedules
    for (const job of yield* registry.all) {
      const schedule = schedules.effective(job, records.get(job.id))
      if (schedule === null) {
        plans.delete(job.id)
        continue
      }
      const plan = yield* planFor(job, schedule, records.get(job.id), at)
      if (Option.isNone(plan) || plan.value.next > at) continue
      plan.value.next = Cron.next(plan.value.cron, at)
      if (busy.has(job.id)) continue
      busy.add(job.id)
      yield* FiberSet.run(passes, pass(job, at, plan.value.next))
    }
  }).pipe(caught("job scheduler tick failed"))

  yield* Effect.forever(Effect.zipRight(tick, Effect.sleep("1 second")))
})

/**
 * The scheduler as a cluster singleton. `JOBS_SCHEDULER=off` leaves it out (tests that run jobs by hand); the
 * routes and `jobs run` work either way.
 */
export const JobSchedulerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const mode = yield* Config.literal("on", "off")("JOBS_SCHEDULER").pipe(Config.withDefault("on" as const))
  return mode === "off" ? Layer.empty : Singleton.make("system/jobs-scheduler", scheduler)
})).pipe(
  Layer.provide(Layer.mergeAll(JobRunner.Default, JobSchedules.Default, JobSettingsRepo.Default))
)
