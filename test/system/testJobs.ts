import { HttpLive, type JobDefinition, registerJobs } from "@timebank/server"
import { Duration, Effect, Layer } from "effect"
import { TestApp } from "../fixtures/TestApp.js"

/**
 * Jobs registered by the jobs tests themselves, to drive the machinery (runs, logs, health, the scheduler) with
 * work and failures the test decides. Their state lives in this process, per tenant.
 *
 *   test.work    processes the tenant's pending items (`addWork`); fails or dies when told (`failWith`)
 *   test.slow    sleeps `slowFor` (default 2 s), then answers 1 item
 */
export const TEST_WORK = "test.work"
export const TEST_SLOW = "test.slow"

/** The default schedule of `test.work`: once a year, so that only overrides make it run. */
export const TEST_WORK_SCHEDULE = "0 0 1 1 *"

const pending = new Map<number, number>()
const failures = new Map<number, { readonly kind: "fail" | "die"; readonly message: string }>()
let slowFor = Duration.seconds(2)

export const addWork = (tenantId: number, items: number) =>
  Effect.sync(() => pending.set(tenantId, (pending.get(tenantId) ?? 0) + items))

export const pendingWork = (tenantId: number) => Effect.sync(() => pending.get(tenantId) ?? 0)

export const failWith = (tenantId: number, kind: "fail" | "die" | "none", message = "") =>
  Effect.sync(() => kind === "none" ? failures.delete(tenantId) : failures.set(tenantId, { kind, message }))

export const setSlowFor = (duration: Duration.DurationInput) =>
  Effect.sync(() => {
    slowFor = Duration.decode(duration)
  })

class TestJobFailed extends Error {}

const testJobs: ReadonlyArray<JobDefinition> = [
  {
    id: TEST_WORK,
    description: "Processes the test's pending items",
    schedule: TEST_WORK_SCHEDULE,
    run: ({ tenantId }) =>
      Effect.suspend(() => {
        const failure = failures.get(tenantId)
        if (failure?.kind === "fail") return Effect.fail(new TestJobFailed(failure.message))
        if (failure?.kind === "die") return Effect.die(new Error(failure.message))
        const items = pending.get(tenantId) ?? 0
        pending.delete(tenantId)
        return Effect.succeed(items)
      })
  },
  {
    id: TEST_SLOW,
    description: "Takes its time",
    schedule: null,
    run: () => Effect.as(Effect.suspend(() => Effect.sleep(slowFor)), 1)
  }
]

/** The test jobs, registered in the process's JobRegistry like a feature's. */
export const TestJobsLive = registerJobs(Effect.succeed(testJobs))

/** The whole API with the test jobs registered (the scheduler off, as in every test app unless `extra` says). */
export const JobsTestApp = (extra: Record<string, string> = {}) => TestApp(extra, Layer.merge(HttpLive, TestJobsLive))
