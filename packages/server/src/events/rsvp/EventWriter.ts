import { CurrentTenant, NotFound, type Tenant } from "@timebank/domain"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Option, Queue, type Tracer } from "effect"
import { oneByOne, withinTime } from "../../platform/EntityBatches.js"
import { callerSpan, withBatchSpan } from "../../platform/Telemetry.js"
import type { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { type Decision, type DecisionContext, settingsOf } from "./EntityDecisions.js"
import {
  applyChange,
  dropsReminders,
  eventsOf,
  isEmptyPlan,
  type Places,
  type PlacesEvent,
  planWrite
} from "./EventPlaces.js"
import { EventPlacesRepo } from "./EventPlacesRepo.js"

/** The most messages whose decisions share one database transaction. */
const MAX_BATCH = 500

/**
 * How long one database step of the entity (a read, a batch's write, a check-in's update) may take before it is
 * abandoned: interrupted, its statement cancelled and its transaction rolled back. Milliseconds are normal; this
 * only stops a hang from holding up every later message of the event.
 */
const STEP_TIMEOUT = Duration.seconds(5)

/** How long the messages of a failed batch may spend failing one by one before the rest fail at once. */
const ONE_BY_ONE_BUDGET = Duration.times(STEP_TIMEOUT, 2)

const bounded = <A, E, R>(step: string, effect: Effect.Effect<A, E, R>) =>
  withinTime(`Event entity: ${step}`, STEP_TIMEOUT, effect)

/** The entity's SQL, each step bounded by STEP_TIMEOUT. */
export const boundedRepo = (repo: EventPlacesRepo): EventPlacesRepo =>
  EventPlacesRepo.make({
    facts: (eventId) => bounded("reading the event", repo.facts(eventId)),
    places: (eventId) => bounded("reading the places", repo.places(eventId)),
    write: (eventId, plan) => bounded("writing a batch", repo.write(eventId, plan)),
    checkIn: (eventId, userId) => bounded("reading a check-in", repo.checkIn(eventId, userId)),
    markAttended: (event, input) => bounded("recording a check-in", repo.markAttended(event, input))
  })

const eventNotFound = () => NotFound.of("Event")

/**
 * A message waiting for the writer. `Decide` messages are decided in memory and written together with the others of
 * their batch; `Alone` messages (check-in: it pays through the Ledger entity first) run by themselves in between.
 */
type Message =
  | {
    readonly _tag: "Decide"
    /** Read the places from the database again before deciding (the event changed outside the entity). */
    readonly reload: boolean
    readonly decide: (context: DecisionContext) => Decision<unknown, unknown>
    /**
     * The answer when the event does not exist (any more); none: 404. Only made when needed: an error captures a
     * stack trace, which every RSVP would pay for.
     */
    readonly missing: Exit.Exit<unknown, unknown> | undefined
    readonly reply: Deferred.Deferred<unknown, unknown>
  }
  | {
    readonly _tag: "Alone"
    readonly run: (context: DecisionContext) => Effect.Effect<readonly [unknown, Places], unknown, CurrentTenant>
    readonly reply: Deferred.Deferred<unknown, unknown>
  }

/** A queued message with the span it was sent in, so that its batch continues that trace (Telemetry.ts). */
type Job = Message & { readonly span: Option.Option<Tracer.AnySpan> }

/**
 * The write-through of one event's entity. Messages that queue up while a write is in flight form the next batch:
 * they are decided in order on the places the earlier ones left, written in ONE database transaction, and only then
 * answered. The places are rebuilt from the database when the writer starts and after a failed write; the event row
 * is read once per batch, because edits, cancels and deletes happen outside the entity. A failed batch is rolled back
 * and its unanswered messages are decided again one by one, so that only the bad one fails; the writer fiber survives
 * whatever a batch does.
 */
export const makeEventWriter = (
  address: { readonly tenantId: number; readonly eventId: number },
  repo: EventPlacesRepo,
  directory: TenantDirectory
) =>
  Effect.gen(function*() {
    const { eventId, tenantId } = address
    const queue = yield* Queue.unbounded<Job>()

    /** The places as committed; null until loaded (and after a write failed). */
    let memory: Places | null = null

    /** Fails every message of `jobs` not answered yet (an answered message keeps its answer). */
    const failAll = (jobs: ReadonlyArray<Job>, cause: Cause.Cause<unknown>) =>
      Effect.forEach(jobs, (job) => Deferred.failCause(job.reply, cause), { discard: true })

    /** Decides a batch in order and writes it, with the event and community of the batch. */
    const runBatch = (jobs: ReadonlyArray<Job>, tenant: Tenant) =>
      Effect.gen(function*() {
        const facts = yield* repo.facts(eventId)
        if (Option.isNone(facts)) {
          memory = null
          return yield* Effect.forEach(jobs, (job) =>
            job._tag === "Decide"
              ? Deferred.complete(job.reply, job.missing ?? Exit.fail(eventNotFound()))
              : Deferred.fail(job.reply, eventNotFound()), { discard: true })
        }
        const event = facts.value
        const settings = settingsOf(tenant)
        const now = new Date(yield* Clock.currentTimeMillis)
        // Places read from the database for this very batch need no second read for its first reload.
        let freshFromDb = memory === null
        let committed = memory ?? (yield* repo.places(eventId))
        memory = committed
        let working = committed
        let answers: Array<readonly [Job, Exit.Exit<unknown, unknown>]> = []
        let events: Array<PlacesEvent> = []
        let leftQueue = new Set<number>()
        let cancelReminders = new Set<number>()

        /** Writes what was decided since the last flush, then answers those messages. */
        const flush = Effect.gen(function*() {
          const plan = planWrite(committed, working, leftQueue, cancelReminders, events)
          // A failed write leaves these messages unanswered: `run` decides them again one by one.
          if (!isEmptyPlan(plan)) yield* repo.write(eventId, plan)
          committed = working
          memory = committed
          yield* Effect.forEach(answers, ([job, exit]) => Deferred.complete(job.reply, exit), { discard: true })
          answers = []
          events = []
          leftQueue = new Set()
          cancelReminders = new Set()
        })

        for (const job of jobs) {
          const justRead = freshFromDb
          freshFromDb = false
          if (job._tag === "Alone" || job.reload) yield* flush
          if (job._tag === "Alone") {
            const done = yield* Effect.exit(job.run({ event, places: committed, settings, now }))
            if (Exit.isSuccess(done)) {
              committed = done.value[1]
              working = committed
              memory = committed
            }
            yield* Deferred.complete(job.reply, Exit.map(done, ([answer]) => answer))
            continue
          }
          if (job.reload && !justRead) {
            committed = yield* repo.places(eventId)
            working = committed
            memory = committed
          }
          const decision = job.decide({ event, places: working, settings, now })
          if (decision._tag === "Refused") {
            answers.push([job, Exit.fail(decision.error)])
            continue
          }
          const { change } = decision
          events.push(...eventsOf(event, working, change))
          for (const userId of [...change.leaveWaitlist, ...change.promoted]) leftQueue.add(userId)
          for (const [userId, status] of change.rsvps) if (dropsReminders(status)) cancelReminders.add(userId)
          working = applyChange(working, change)
          answers.push([job, Exit.succeed(decision.answer(working))])
        }
        yield* flush
      })

    /** Fails the messages not answered yet; when the event was deleted meanwhile, that is their answer (404). */
    const failUnanswered = (jobs: ReadonlyArray<Job>, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        if (jobs.length === 0) return
        const gone = yield* repo.facts(eventId).pipe(
          Effect.map(Option.isNone),
          Effect.catchAllCause(() => Effect.succeed(false))
        )
        yield* failAll(jobs, gone ? Cause.fail(eventNotFound()) : cause)
      })

    const unansweredOf = (jobs: ReadonlyArray<Job>) =>
      Effect.filter(jobs, (job) => Effect.map(Deferred.isDone(job.reply), (done) => !done))

    /**
     * Runs `jobs` as one batch. When it fails, what it wrote is rolled back and the next batch starts from the
     * database; the messages it left unanswered run again one by one.
     */
    const run = (jobs: ReadonlyArray<Job>, tenant: Tenant) =>
      Effect.gen(function*() {
        const result = yield* Effect.exit(runBatch(jobs, tenant))
        if (Exit.isSuccess(result)) return
        memory = null
        const unanswered = yield* unansweredOf(jobs)
        if (unanswered.length <= 1) return yield* failUnanswered(unanswered, result.cause)
        // Each is decided again on the places the earlier ones left (loaded afresh after a failure), in arrival
        // order, so that only the bad one fails.
        yield* Effect.logWarning("Event batch failed; deciding its messages one by one", result.cause)
        yield* oneByOne(unanswered, {
          budget: ONE_BY_ONE_BUDGET,
          run: (job) => runBatch([job], tenant),
          fail: (failed, cause) => {
            memory = null
            return failUnanswered(failed, cause)
          }
        })
      })

    const serve = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const tenant = yield* directory.find({ _tag: "Id", id: String(tenantId) })
        if (Option.isNone(tenant)) return yield* failAll(jobs, Cause.fail(eventNotFound()))
        yield* run(jobs, tenant.value).pipe(Effect.provideService(CurrentTenant, tenant.value))
      })

    const writeNext = Effect.gen(function*() {
      const jobs = [yield* Queue.take(queue), ...(yield* Queue.takeUpTo(queue, MAX_BATCH - 1))]
      // Whatever goes wrong, every message gets an answer and the loop goes on with the next batch.
      yield* serve(jobs).pipe(
        withBatchSpan("EventWriter.batch", jobs.map((job) => job.span)),
        Effect.catchAllCause((cause) => {
          memory = null
          return failAll(jobs, cause)
        })
      )
    })
    yield* Effect.forkScoped(Effect.forever(writeNext))

    /** Queues a message for the writer and waits for its answer. */
    const submit = <A, E>(job: (reply: Deferred.Deferred<unknown, unknown>) => Message) =>
      Effect.gen(function*() {
        const reply = yield* Deferred.make<unknown, unknown>()
        yield* Queue.offer(queue, { ...job(reply), span: yield* callerSpan })
        return (yield* Deferred.await(reply)) as A
      }) as Effect.Effect<A, E>

    const decide = <A, E>(
      decide: (context: DecisionContext) => Decision<A, E>,
      options: { readonly reload?: boolean; readonly missing?: Exit.Exit<A, E | NotFound> } = {}
    ) =>
      submit<A, E | NotFound>((reply) => ({
        _tag: "Decide",
        reload: options.reload ?? false,
        decide,
        missing: options.missing,
        reply
      }))

    /** Queues a message that runs alone (between batches) and waits for its answer. */
    const alone = <A, E>(run: Extract<Job, { _tag: "Alone" }>["run"]) =>
      submit<A, E>((reply) => ({ _tag: "Alone", run, reply }))

    return { decide, alone } as const
  })
