import { type JobRun, JobRun as JobRunSchema } from "@timebank/domain"
import { JobsOperator } from "@timebank/server"
import { DateTime, Effect, Schema } from "effect"
import type { AnyCommand, Command } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { tenantOption } from "../Operator.js"
import { table } from "../Render.js"

const runLine = (run: JobRun, slug: string) => {
  const took = run.finished_at === null
    ? ""
    : `, ${(DateTime.toEpochMillis(run.finished_at) - DateTime.toEpochMillis(run.started_at)) / 1000} s`
  const outcome = run.status === "failed" ? `failed: ${run.error}` : `${run.status}, ${run.items} item(s)`
  return `run ${run.id} of ${run.job_id} for tenant "${slug}": ${outcome}${took}`
}

export const jobsList: Command<"jobs"> = {
  name: "jobs list",
  summary: "list the background jobs and their schedules",
  positionals: [],
  options: [],
  examples: ["jobs list", "jobs list --json"],
  needs: "jobs",
  run: () =>
    Effect.map(Effect.flatMap(JobsOperator, (jobs) => jobs.list), (list) => ({
      json: list,
      text: table(
        ["JOB", "SCHEDULE", "DESCRIPTION"],
        list.map((job) => [job.id, job.schedule ?? "on demand", job.description])
      )
    }))
}

export const jobsRun: Command<"jobs"> = {
  name: "jobs run",
  summary: "run a job now for one tenant, wait for its end and print the run",
  details: "The run is recorded (trigger cli) as a scheduled one would be. A run of the same job for the same " +
    "tenant that is going on already is waited for instead of started twice.",
  positionals: [{ name: "NAME", description: "the job, as jobs list names it (tokens.purge, ...)" }],
  options: [tenantOption],
  examples: ["jobs run tokens.purge --tenant demo", "jobs run tokens.purge --tenant 7 --json"],
  exits: [
    [ExitCode.failed, "the run failed (its error is in the output)"],
    [ExitCode.notFound, "no such job, or no such tenant"]
  ],
  needs: "jobs",
  run: ([name], flags) =>
    Effect.gen(function*() {
      const { run, started, tenant } = yield* (yield* JobsOperator).run(name!, String(flags["tenant"]))
      const note = started ? "" : " (it was already running; this is its outcome)"
      return {
        json: Schema.encodeSync(JobRunSchema)(run),
        text: runLine(run, tenant.slug) + note,
        exitCode: run.status === "failed" ? ExitCode.failed : ExitCode.ok
      }
    })
}

export const jobsCommands: ReadonlyArray<AnyCommand> = [jobsList, jobsRun]
