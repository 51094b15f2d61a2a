import type { JobTrigger } from "@timebank/domain"
import { Cause, Clock, Duration, Effect, Exit, Fiber, FiberSet, Option } from "effect"
import type { JobDefinition } from "../../platform/JobRegistry.js"
import { type JobRunRow, JobRunsRepo } from "./JobRunsRepo.js"

/** Longest error text kept with a run. */
const MAX_ERROR = 1000

/** How often a caller waiting on another caller's run looks at it again. */
const POLL = Duration.millis(200)

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value instanceof Error) return value.message || value.name
  if (typeof value === "object" && value !== null) {
    const { _tag, message } = value as { _tag?: unknown; message?: unknown }
    if (typeof message === "string" && message !== "") return message
    if (typeof _tag === "string") return _tag
  }
  return JSON.stringify(value) ?? String(value)
}

/** What a run tells of a failed job: the message only (no stack), at most 1000 characters. */
export const errorText = (cause: Cause.Cause<unknown>): string => {
  if (Cause.isInterruptedOnly(cause)) return "interrupted"
  const text = Option.match(Cause.failureOption(cause), {
    onSome: textOf,
    onNone: () => textOf(Cause.squash(cause))
  })
  return (text === "" ? "failed" : text).slice(0, MAX_ERROR)
}

/** What a job answered as its item count, as the `items` column holds it (a whole number, at least 0). */
const itemCount = (n: number) => Number.isFinite(n) ? Math.min(2_147_483_647, Math.max(0, Math.trunc(n))) : 0

/** A run that was asked for: the run, and how to wait for its end (`started`: this call started it). */
export interface Started {
  readonly run: JobRunRow
  readonly started: boolean
  readonly finished: Effect.Effect<JobRunRow>
}

/** A scheduled run's outcome; `busy` when another run of the job for that tenant was going on. */
export type ScheduledOutcome =
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Done"; readonly status: "succeeded" | "failed"; readonly items: number; readonly error: string }

/**
 * Runs jobs for one tenant and records the runs. A run first takes the job's `running` row for the tenant (one per
 * job and tenant across every runner, by a unique index); a caller finding one answers that run instead. Whatever
 * the job does — succeed, fail, die, be interrupted — its row ends `succeeded` or `failed`; nothing else fails.
 */
export class JobRunner extends Effect.Service<JobRunner>()("JobRunner", {
  dependencies: [JobRunsRepo.Default],
  scoped: Effect.gen(function*() {
    const repo = yield* JobRunsRepo
    // Runs asked for over HTTP go on after the request answered 202; they stop with this service.
    const background = yield* FiberSet.make<JobRunRow>()

    /** Runs the job on `row` and ends the row; `keepEmpty: false` forgets a success that processed nothing. */
    const execute = (job: JobDefinition, row: JobRunRow, keepEmpty: boolean) =>
      Effect.suspend(() => job.run({ tenantId: row.tenant_id!, at: row.started_at })).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.flatMap(now, (finishedAt) => {
            if (Exit.isSuccess(exit) && itemCount(exit.value) === 0 && !keepEmpty) {
              return Effect.as(repo.forget(row.id), row)
            }
            return repo.finish(
              row.id,
              Exit.isSuccess(exit)
                ? { status: "succeeded", items: itemCount(exit.value), error: null, finishedAt }
                : { status: "failed", items: 0, error: errorText(exit.cause), finishedAt }
            )
          })
        ),
        // Stopped (shutdown, the scheduler moving): the run ends failed, unless it had ended already.
        Effect.onInterrupt(() => Effect.ignore(Effect.flatMap(now, (at) => repo.interrupted(row.id, at)))),
        Effect.annotateLogs({ job: job.id, tenant: row.tenant_id })
      )

    /** The run with this id once it is no longer running (another caller's, perhaps on another runner). */
    const whenFinished = (tenantId: number, id: number): Effect.Effect<JobRunRow> =>
      repo.find(tenantId, id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.dieMessage(`job run ${id} vanished`),
          onSome: (run) =>
            run.status === "running"
              ? Effect.zipRight(Effect.sleep(POLL), whenFinished(tenantId, id))
              : Effect.succeed(run)
        }))
      )

    /**
     * Starts a run for `tenantId` that goes on in the background, or finds the one going on. Always recorded,
     * even when it processed nothing.
     */
    const start = (
      job: JobDefinition,
      tenantId: number,
      trigger: JobTrigger,
      requestedBy: number | null
    ): Effect.Effect<Started> =>
      Effect.gen(function*() {
        const startedAt = yield* now
        const row = yield* repo.start({ jobId: job.id, tenantId, trigger, requestedBy, startedAt })
        if (Option.isSome(row)) {
          const fiber = yield* FiberSet.run(background, execute(job, row.value, true))
          return { run: row.value, started: true, finished: Fiber.join(fiber) } satisfies Started
        }
        const running = yield* repo.running(job.id, tenantId)
        // The other run ended between the insert and this read: start again.
        if (Option.isNone(running)) return yield* start(job, tenantId, trigger, requestedBy)
        return {
          run: running.value,
          started: false,
          finished: whenFinished(tenantId, running.value.id)
        } satisfies Started
      })

    /**
     * A scheduled run for one tenant: recorded only when it processed items or failed, so that a frequent job
     * leaves no row per tenant and tick.
     */
    const runScheduled = (job: JobDefinition, tenantId: number, at: Date): Effect.Effect<ScheduledOutcome> =>
      Effect.gen(function*() {
        const row = yield* repo.start({
          jobId: job.id,
          tenantId,
          trigger: "schedule",
          requestedBy: null,
          startedAt: at
        })
        if (Option.isNone(row)) return { _tag: "Busy" } as const
        const ended = yield* execute(job, row.value, false)
        return {
          _tag: "Done",
          status: ended.status === "failed" ? "failed" : "succeeded",
          items: ended.items,
          error: ended.error ?? ""
        } as const
      })

    return { start, runScheduled, failAbandoned: repo.failAbandoned } as const
  })
}) {}
