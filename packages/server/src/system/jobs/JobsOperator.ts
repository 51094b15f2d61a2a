import { NotFound } from "@timebank/domain"
import { Effect } from "effect"
import { JobRegistry } from "../../platform/JobRegistry.js"
import { TenantService } from "../../tenancy/index.js"
import { JobRunner } from "./JobRunner.js"
import { toJobRun } from "./JobRunsRepo.js"
import { JobSchedules } from "./JobSchedules.js"
import { JobSettingsRepo } from "./JobSettingsRepo.js"
import { findJob } from "./JobsService.js"

/** The jobs for operators (`jobs list`, `jobs run NAME --tenant SLUG`): no request, no role, any community. */
export class JobsOperator extends Effect.Service<JobsOperator>()("JobsOperator", {
  dependencies: [JobRunner.Default, JobSchedules.Default, JobSettingsRepo.Default],
  effect: Effect.gen(function*() {
    const registry = yield* JobRegistry
    const runner = yield* JobRunner
    const schedules = yield* JobSchedules
    const settings = yield* JobSettingsRepo
    const tenants = yield* TenantService

    /** Every job with the schedule in force. */
    const list = Effect.gen(function*() {
      const records = yield* settings.schedules
      return (yield* registry.all).map((job) => ({
        id: job.id,
        description: job.description,
        schedule: schedules.effective(job, records.get(job.id))
      }))
    })

    /** The tenant with this id or slug (as `user create --tenant` takes it). */
    const findTenant = (ref: string) =>
      Effect.flatMap(tenants.list, (all) => {
        const tenant = /^[1-9][0-9]*$/.test(ref)
          ? all.find((t) => t.id === Number(ref))
          : all.find((t) => t.slug === ref.toLowerCase())
        return tenant === undefined ? Effect.fail(NotFound.of("Tenant")) : Effect.succeed(tenant)
      })

    /** Runs the job for one tenant and waits for its end (or for the end of the run already going on). */
    const run = (jobId: string, tenantRef: string) =>
      Effect.gen(function*() {
        const job = yield* findJob(registry, jobId)
        const tenant = yield* findTenant(tenantRef)
        const started = yield* runner.start(job, tenant.id, "cli", null)
        return { tenant, run: toJobRun(yield* started.finished), started: started.started }
      })

    return { list, run } as const
  })
}) {}
