import { type JobRun, JobRun as JobRunSchema } from "@timebank/domain"
import { JobsOperator } from "@timebank/server"
import { DateTime, Effect, Schema } from "effect"
import type { Command } from "../Command.js"
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
  synopsis: "",
  positionals: [],
  flags: [],
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
  summary: "run a job now for one tenant and print the run (exit 1 when it failed)",
  synopsis: "NAME --tenant SLUG|ID",
  positionals: ["NAME"],
  flags: ["tenant"],
  requiredFlags: ["tenant"],
  needs: "jobs",
  run: ([name], flags) =>
    Effect.gen(function*() {
      const { run, started, tenant } = yield* (yield* JobsOperator).run(name!, String(flags["tenant"]))
      const note = started ? "" : " (it was already running; this is its outcome)"
      return {
        json: Schema.encodeSync(JobRunSchema)(run),
        text: runLine(run, tenant.slug) + note,
        exitCode: run.status === "failed" ? 1 : 0
      }
    })
}
