import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { JobSettingsService } from "./JobSettingsService.js"
import { JobsService } from "./JobsService.js"

/** The contract's first answer is 200; a run still going on after the wait answers 202. */
const answerAccepted = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setStatus(response, 202))
)

const runNow = (jobs: JobsService, id: string) =>
  Effect.gen(function*() {
    const { finished, run } = yield* jobs.run(id)
    if (!finished) yield* answerAccepted
    return ok(run)
  })

const BackgroundJobsHttpLive = HttpApiBuilder.group(Api, "adminBackgroundJobs", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* JobsService
    return handlers
      .handle("list", () => Effect.map(jobs.backgroundJobs(), ok))
      .handle("run", ({ path }) => runNow(jobs, path.id))
  }))

const CronJobsHttpLive = HttpApiBuilder.group(Api, "adminCronJobs", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* JobsService
    const settings = yield* JobSettingsService
    return handlers
      .handle("list", () => Effect.map(jobs.cronJobs(), ok))
      .handle("health", () => Effect.map(jobs.health(), ok))
      .handle("logs", ({ urlParams }) => jobs.logs(urlParams))
      .handle("deleteLogs", ({ urlParams }) => Effect.map(jobs.deleteLogs(urlParams), ok))
      .handle("log", ({ path }) => Effect.map(jobs.log(path.id), ok))
      .handle("settings", () => Effect.map(settings.all(), ok))
      .handle("updateSettings", ({ payload }) => Effect.map(settings.updateMany(payload), ok))
      .handle("setting", ({ path }) => Effect.map(settings.one(path.jobId), ok))
      .handle("updateSetting", ({ path, payload }) => Effect.map(settings.updateOne(path.jobId, payload), ok))
      .handle("run", ({ path }) => runNow(jobs, path.id))
  }))

/** The admin routes of the jobs (decisions D17 "Jobs"). */
export const JobsHttpLive = Layer.merge(BackgroundJobsHttpLive, CronJobsHttpLive).pipe(
  Layer.provide(Layer.merge(JobsService.Default, JobSettingsService.Default))
)
