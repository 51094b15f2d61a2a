import { CronExpression, type JobHealth, parseCron } from "@timebank/domain"
import { Config, Cron, Effect, Either, Option, Schema } from "effect"
import type { JobDefinition } from "../../platform/JobRegistry.js"
import type { JobRunRow } from "./JobRunsRepo.js"
import type { ScheduleRow } from "./JobSettingsRepo.js"

/** A planned run this much overdue means no scheduler is running the job. */
export const STALE_AFTER_MS = 5 * 60_000

/** `JOB_SCHEDULES`: job id → cron expression, or null for on demand only. */
const OperatorSchedules = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.NullOr(CronExpression) }))

/** The cron of a schedule text; none for text that does not parse (a bad default is logged by the scheduler). */
export const cronOf = (schedule: string): Option.Option<Cron.Cron> => Either.getRight(parseCron(schedule))

/** When the job runs next: the scheduler's plan when it fits the schedule, else the schedule's next time. */
export const nextRunOf = (cron: Cron.Cron, record: ScheduleRow | undefined, now: Date): Date =>
  record?.next_run_at != null && Cron.match(cron, record.next_run_at) ? record.next_run_at : Cron.next(cron, now)

/**
 * A scheduled job's health in one community (decisions D17, our definition): `disabled` when switched off there;
 * `failing` when its latest run there failed and no scheduled pass has finished since (a pass that found nothing
 * to do leaves no run, so a later finished pass means it worked again); `stale` when the scheduler's planned run is
 * over five minutes overdue (no runner schedules it: the scheduler is off or stuck); else `ok`.
 */
export const healthOf = (input: {
  readonly enabled: boolean
  readonly lastRun: JobRunRow | undefined
  readonly record: ScheduleRow | undefined
  readonly now: Date
}): JobHealth => {
  const { enabled, lastRun, now, record } = input
  if (!enabled) return "disabled"
  if (lastRun?.status === "failed" && !passFinishedAfter(record, lastRun.finished_at ?? lastRun.started_at)) {
    return "failing"
  }
  if (record?.next_run_at != null && record.next_run_at.getTime() < now.getTime() - STALE_AFTER_MS) return "stale"
  return "ok"
}

const passFinishedAfter = (record: ScheduleRow | undefined, instant: Date) =>
  record?.last_run_at != null && record.last_finished_at != null &&
  record.last_run_at.getTime() > instant.getTime() &&
  record.last_finished_at.getTime() >= record.last_run_at.getTime()

/**
 * Which schedule each job has: a platform super-admin's (`job_schedules.schedule`), else the operator's
 * (`JOB_SCHEDULES`, a JSON object of job id → cron or null), else the job's own default.
 */
export class JobSchedules extends Effect.Service<JobSchedules>()("JobSchedules", {
  effect: Effect.gen(function*() {
    const text = yield* Config.option(Config.string("JOB_SCHEDULES")).pipe(Effect.orDie)
    const operator = yield* Option.match(text, {
      onNone: () => Effect.succeed<Record<string, string | null>>({}),
      onSome: (json) =>
        Schema.decode(OperatorSchedules)(json).pipe(
          Effect.mapError((e) => new Error(`JOB_SCHEDULES is not a JSON object of job id → cron: ${e.message}`)),
          Effect.orDie
        )
    })

    const effective = (job: JobDefinition, record: ScheduleRow | undefined): string | null =>
      record?.schedule ?? (Object.hasOwn(operator, job.id) ? operator[job.id]! : job.schedule)

    /** The schedule a job has without a super-admin's: the operator's, else its own. */
    const fallback = (job: JobDefinition): string | null => effective(job, undefined)

    return { effective, fallback } as const
  })
}) {}
