import { Effect, Layer } from "effect"

/** What a job runs for: one community, at one instant (the scheduler's tick or the moment an admin asked). */
export interface JobContext {
  readonly tenantId: number
  readonly at: Date
}

/**
 * One named piece of the service's recurring or on-demand work (decisions D17 "Jobs"). `run` does the work for one
 * tenant and answers how many items it processed; it fails (or dies) when the work failed. Its services are
 * captured when the owning feature registers it, so the runner needs none.
 */
export interface JobDefinition {
  /** Dotted name, such as `reminders.deliver`. */
  readonly id: string
  readonly description: string
  /** The default schedule as a cron expression (5 fields, or 6 with seconds first); null = on demand only. */
  readonly schedule: string | null
  readonly run: (context: JobContext) => Effect.Effect<number, unknown>
}

/**
 * The one registry of named jobs. Each feature registers its jobs from its own layer (`registerJobs`); the scheduler
 * and the admin routes read the registry. Registering an id twice is a programming error.
 */
export class JobRegistry extends Effect.Service<JobRegistry>()("JobRegistry", {
  sync: () => {
    const jobs = new Map<string, JobDefinition>()
    return {
      register: (job: JobDefinition) =>
        Effect.sync(() => {
          if (jobs.has(job.id)) throw new Error(`job ${job.id} registered twice`)
          jobs.set(job.id, job)
        }),
      all: Effect.sync((): ReadonlyArray<JobDefinition> => [...jobs.values()].sort((a, b) => a.id.localeCompare(b.id))),
      find: (id: string) => Effect.sync(() => jobs.get(id))
    } as const
  }
}) {}

/** A feature's layer registering the jobs `make` builds with that feature's services. */
export const registerJobs = <E, R>(make: Effect.Effect<ReadonlyArray<JobDefinition>, E, R>) =>
  Layer.effectDiscard(
    Effect.flatMap(Effect.zip(JobRegistry, make), ([registry, jobs]) =>
      Effect.forEach(jobs, registry.register, { discard: true }))
  )
