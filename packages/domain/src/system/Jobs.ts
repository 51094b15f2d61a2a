import { Cron, Either, Schema } from "effect"
import { OffsetPageParams } from "../http/Cursor.js"
import { PATH_PARAM_NOT_FOUND, PathId, RecordId } from "../http/Ids.js"

/** How a run started: the scheduler's tick, an admin's request, or an operator's `jobs run` on the command line. */
export const JobTrigger = Schema.Literal("schedule", "manual", "cli")
export type JobTrigger = typeof JobTrigger.Type

export const JobRunStatus = Schema.Literal("running", "succeeded", "failed")
export type JobRunStatus = typeof JobRunStatus.Type

/**
 * A scheduled job's state for one community: `disabled` (switched off here), `failing` (its latest run here failed
 * and no scheduled pass has succeeded since), `stale` (the scheduler's planned run is over five minutes overdue),
 * else `ok`.
 */
export const JobHealth = Schema.Literal("ok", "failing", "stale", "disabled")
export type JobHealth = typeof JobHealth.Type

/** A job's dotted name, such as `reminders.deliver`: lowercase words joined by dots. */
export const JobName = Schema.String.pipe(
  Schema.maxLength(100),
  Schema.pattern(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/)
).annotations({ description: "A job's dotted name, such as `tokens.purge`" })

/** A job's name in a path: one that cannot be a job's names none (404, decisions D1). */
const JobNameParam = JobName.annotations({ message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true }) })

/** Parses a cron expression the way the scheduler does: 5 fields, or 6 with seconds first, in UTC. */
export const parseCron = (text: string) => Cron.parse(text, "UTC")

/** A cron expression: 5 fields (minute hour day month weekday), or 6 with seconds first; times are UTC. */
export const CronExpression = Schema.String.pipe(
  Schema.maxLength(100),
  Schema.filter((text) => Either.isRight(parseCron(text)) || "is not a cron expression (5 or 6 fields)")
).annotations({
  description: "Cron expression, 5 fields (minute hour day month weekday) or 6 with seconds first; UTC",
  examples: ["*/5 * * * *", "0 0 3 * * *"]
})

/** One run of a job for one community. */
export const JobRun = Schema.Struct({
  id: Schema.Int,
  job_id: Schema.String,
  trigger: JobTrigger,
  started_at: Schema.DateTimeUtc,
  finished_at: Schema.NullOr(Schema.DateTimeUtc),
  status: JobRunStatus,
  items: Schema.Int.annotations({ description: "How many items the run processed" }),
  error: Schema.NullOr(Schema.String).annotations({ description: "Why the run failed (at most 1000 characters)" })
})
export type JobRun = typeof JobRun.Type

/** A job of the registry as a community's admins see it. */
export const BackgroundJob = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  schedule: Schema.NullOr(Schema.String).annotations({ description: "The schedule in force; null = on demand" }),
  enabled: Schema.Boolean.annotations({ description: "Whether scheduled runs include this community" }),
  last_run: Schema.NullOr(JobRun).annotations({ description: "This community's latest recorded run" })
})
export type BackgroundJob = typeof BackgroundJob.Type

/** A scheduled job as a community's admins see it. */
export const CronJob = Schema.Struct({
  id: Schema.String,
  schedule: Schema.String,
  enabled: Schema.Boolean,
  last_run: Schema.NullOr(JobRun),
  last_pass_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "When the scheduler last ran the job (a pass that found nothing to do records no run)"
  }),
  next_run: Schema.DateTimeUtc,
  health: JobHealth
})
export type CronJob = typeof CronJob.Type

export const CronJobsHealth = Schema.Struct({
  ok: Schema.Int,
  failing: Schema.Int,
  stale: Schema.Int,
  disabled: Schema.Int,
  jobs: Schema.Array(Schema.Struct({ id: Schema.String, health: JobHealth }))
})
export type CronJobsHealth = typeof CronJobsHealth.Type

/** A job's switch for this community and its schedule (platform-wide). */
export const JobSetting = Schema.Struct({
  job_id: Schema.String,
  enabled: Schema.Boolean,
  schedule: Schema.NullOr(Schema.String).annotations({ description: "The schedule in force; null = on demand" }),
  default_schedule: Schema.NullOr(Schema.String).annotations({
    description: "The schedule the job has when no super-admin changed it"
  })
})
export type JobSetting = typeof JobSetting.Type

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

const settingFields = {
  enabled: exact(Schema.Boolean).annotations({ description: "Include this community in scheduled runs" }),
  schedule: exact(Schema.NullOr(CronExpression)).annotations({
    description: "Platform super-admins only: the job's schedule for every community; null restores the default"
  })
}

export const JobSettingInput = Schema.Struct(settingFields).annotations({
  parseOptions: { onExcessProperty: "error" }
})
export type JobSettingInput = typeof JobSettingInput.Type

export const JobSettingsInput = Schema.Struct({
  jobs: Schema.Array(
    Schema.Struct({ job_id: JobName, ...settingFields }).annotations({ parseOptions: { onExcessProperty: "error" } })
  ).pipe(Schema.maxItems(500))
})
export type JobSettingsInput = typeof JobSettingsInput.Type

export const JobLogsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  job_id: Schema.optional(JobName).annotations({ description: "Only runs of this job" }),
  status: Schema.optional(JobRunStatus).annotations({ description: "Only runs with this status" })
})
export type JobLogsParams = typeof JobLogsParams.Type

export const DeleteJobLogsParams = Schema.Struct({
  before: Schema.optional(Schema.DateTimeUtc).annotations({
    description: "Only runs started before this instant (ISO 8601); absent = every finished run"
  })
})
export type DeleteJobLogsParams = typeof DeleteJobLogsParams.Type

export const JobLogsDeleted = Schema.Struct({ deleted: Schema.Int })

export const JobNamePath = Schema.Struct({ id: JobNameParam })
export const JobSettingPath = Schema.Struct({ jobId: JobNameParam })
export const JobRunPath = Schema.Struct({ id: PathId(RecordId) })
