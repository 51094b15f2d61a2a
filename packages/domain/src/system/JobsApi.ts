import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  BackgroundJob,
  CronJob,
  CronJobsHealth,
  DeleteJobLogsParams,
  JobLogsDeleted,
  JobLogsParams,
  JobNamePath,
  JobRun,
  JobRunPath,
  JobSetting,
  JobSettingInput,
  JobSettingPath,
  JobSettingsInput
} from "./Jobs.js"

const BACKGROUND_JOBS = "/api/v2/admin/background-jobs"
const CRON_JOBS = "/api/v2/admin/system/cron-jobs"

const RUN_DESCRIPTION = "Runs the job now for this community only. A run finished within 30 seconds answers 200; " +
  "a longer one answers 202 with the run `running` and goes on in the background (follow it in the logs). While " +
  "a run of the job is going on here, the answer is that run. An unknown job is 404"

/** `POST …/{id}/run`: 200 with the finished run, 202 with the run still going on. */
const runEndpoint = <const Name extends string>(name: Name, path: `/${string}`) =>
  HttpApiEndpoint.post(name, path)
    .annotate(OpenApi.Summary, "Run a job now")
    .setPath(JobNamePath)
    .addSuccess(DataEnvelope(JobRun))
    .addSuccess(
      DataEnvelope(JobRun).annotations({ description: "The run goes on in the background (status `running`)" }),
      { status: 202 }
    )
    .addError(httpError(NotFound))
    .annotate(OpenApi.Description, RUN_DESCRIPTION)
    // Both paths run a job: one name in the audit trail.
    .annotate(AuditAction, "jobs.run")

/** Every named job of the service, and running one by hand (decisions D17 "Jobs"). */
export class AdminBackgroundJobsApi extends HttpApiGroup.make("adminBackgroundJobs")
  .annotate(OpenApi.Title, "Admin: background jobs")
  .annotate(
    OpenApi.Description,
    "The service's named jobs and this community's runs of them: tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.get("list", BACKGROUND_JOBS)
      .annotate(OpenApi.Summary, "List the background jobs")
      .addSuccess(DataEnvelope(Schema.Array(BackgroundJob)))
      .annotate(OpenApi.Description, "Every job, its schedule, whether it runs here and this community's last run")
  )
  .add(runEndpoint("run", `${BACKGROUND_JOBS}/:id/run`))
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** The scheduled jobs: their health, this community's run logs and switches, and (super-admins) their schedules. */
export class AdminCronJobsApi extends HttpApiGroup.make("adminCronJobs")
  .annotate(OpenApi.Title, "Admin: scheduled jobs")
  .annotate(
    OpenApi.Description,
    "Scheduled jobs, this community's run logs and switches: tenant admins; schedules: platform super-admins"
  )
  .add(
    HttpApiEndpoint.get("list", CRON_JOBS)
      .annotate(OpenApi.Summary, "List the scheduled jobs")
      .addSuccess(DataEnvelope(Schema.Array(CronJob)))
      .annotate(
        OpenApi.Description,
        "Jobs with a schedule: whether they run here, the last and next run and their health (`disabled`: " +
          "switched off here; `failing`: the latest run here failed and no scheduled pass succeeded since; " +
          "`stale`: the planned run is over five minutes overdue; else `ok`)"
      )
  )
  .add(
    HttpApiEndpoint.get("health", `${CRON_JOBS}/health`)
      .annotate(OpenApi.Summary, "Scheduled jobs' health")
      .addSuccess(DataEnvelope(CronJobsHealth))
      .annotate(OpenApi.Description, "How many scheduled jobs are in each health state here, and each job's")
  )
  .add(
    HttpApiEndpoint.get("logs", `${CRON_JOBS}/logs`)
      .annotate(OpenApi.Summary, "List this community's job runs")
      .setUrlParams(JobLogsParams)
      .addSuccess(OffsetPage(JobRun))
      .annotate(OpenApi.Description, "Runs for this community, newest first; filters job_id and status")
  )
  .add(
    HttpApiEndpoint.del("deleteLogs", `${CRON_JOBS}/logs`)
      .annotate(OpenApi.Summary, "Delete this community's finished runs")
      .setUrlParams(DeleteJobLogsParams)
      .addSuccess(DataEnvelope(JobLogsDeleted))
      .annotate(OpenApi.Description, "Deletes finished runs (started before `before`, when given); never a running one")
  )
  .add(
    HttpApiEndpoint.get("log", `${CRON_JOBS}/logs/:id`)
      .annotate(OpenApi.Summary, "Get a job run")
      .setPath(JobRunPath)
      .addSuccess(DataEnvelope(JobRun))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "One run of this community")
  )
  .add(
    HttpApiEndpoint.get("settings", `${CRON_JOBS}/settings`)
      .annotate(OpenApi.Summary, "Get every job's settings")
      .addSuccess(DataEnvelope(Schema.Array(JobSetting)))
      .annotate(OpenApi.Description, "Each job: whether it runs here, and its schedule")
  )
  .add(
    HttpApiEndpoint.put("updateSettings", `${CRON_JOBS}/settings`)
      .annotate(OpenApi.Summary, "Change several jobs' settings")
      .setPayload(JobSettingsInput)
      .addSuccess(DataEnvelope(Schema.Array(JobSetting)))
      .annotate(
        OpenApi.Description,
        "Changes the given jobs' settings, all or none: `enabled` for this community (tenant admins), `schedule` " +
          "for every community (platform super-admins only, else 403). An unknown job is 422 `jobs.N.job_id`"
      )
  )
  .add(
    HttpApiEndpoint.get("setting", `${CRON_JOBS}/:jobId/settings`)
      .annotate(OpenApi.Summary, "Get a job's settings")
      .setPath(JobSettingPath)
      .addSuccess(DataEnvelope(JobSetting))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Whether the job runs here, and its schedule")
  )
  .add(
    HttpApiEndpoint.put("updateSetting", `${CRON_JOBS}/:jobId/settings`)
      .annotate(OpenApi.Summary, "Change a job's settings")
      .setPath(JobSettingPath)
      .setPayload(JobSettingInput)
      .addSuccess(DataEnvelope(JobSetting))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "`enabled` for this community (tenant admins); `schedule` for every community (platform super-admins " +
          "only, else 403; null restores the default)"
      )
  )
  .add(runEndpoint("run", `${CRON_JOBS}/:id/run`))
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
