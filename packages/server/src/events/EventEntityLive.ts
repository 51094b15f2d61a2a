import { Entity } from "@effect/cluster"
import {
  AlreadyAttended,
  type CheckInResult,
  CheckinWindowClosed,
  CurrentTenant,
  EventCancelled,
  EventEnded,
  EventEntity,
  EventFull,
  type EventId,
  fromCents,
  type InsufficientBalance,
  MembersOnly,
  NotAttending,
  NotFound,
  type RsvpChoice,
  type RsvpRemoved,
  type RsvpResult,
  type Tenant,
  type TransactionId,
  type UserId,
  type WaitlistJoined,
  type WaitlistLeft,
  WaitlistNotNeeded
} from "@timebank/domain"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Option, Queue } from "effect"
import { LedgerService } from "../ledger/LedgerService.js"
import { oneByOne, withinTime } from "../platform/EntityBatches.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import {
  applyChange,
  canCheckIn,
  type Change,
  checkInCents,
  checkInWindowOpen,
  countsOf,
  decideRemoval,
  decideRsvp,
  dropsReminders,
  type EventFacts,
  eventsOf,
  hasEnded,
  isEmptyPlan,
  noChange,
  type Places,
  type PlacesEvent,
  planWrite,
  positionOf,
  promotions,
  type RsvpRefusal,
  type Settings
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
const boundedRepo = (repo: EventPlacesRepo): EventPlacesRepo =>
  EventPlacesRepo.make({
    facts: (eventId) => bounded("reading the event", repo.facts(eventId)),
    places: (eventId) => bounded("reading the places", repo.places(eventId)),
    write: (eventId, plan) => bounded("writing a batch", repo.write(eventId, plan)),
    checkIn: (eventId, userId) => bounded("reading a check-in", repo.checkIn(eventId, userId)),
    markAttended: (event, input) => bounded("recording a check-in", repo.markAttended(event, input))
  })

const eventNotFound = () => NotFound.of("Event")

const refuse = {
  cancelled: () => new EventCancelled({ message: "This event is cancelled" }),
  ended: () => new EventEnded({ message: "This event has ended" }),
  members_only: () => new MembersOnly({ message: "This meeting is for approved members only" }),
  full: () => new EventFull({ message: "This event is full and this community keeps no waitlist" }),
  attended: () => new AlreadyAttended({ message: "You were checked in to this event; your RSVP no longer changes" })
} satisfies Record<RsvpRefusal, () => unknown>

const settingsOf = (tenant: Tenant): Settings => ({
  waitlistEnabled: tenant.settings.waitlist_enabled,
  autoPromote: tenant.settings.waitlist_auto_promote
})

/** What a message is decided on: the event row, its places as committed so far in the batch, the community. */
interface Context {
  readonly event: EventFacts
  readonly places: Places
  readonly settings: Settings
  readonly now: Date
}

/** A decision made in memory: a refusal, or a change with the answer to give once it is written. */
type Decision<A, E> =
  | { readonly _tag: "Refused"; readonly error: E }
  | { readonly _tag: "Accepted"; readonly change: Change; readonly answer: (after: Places) => A }

const refused = <E>(error: E): Decision<never, E> => ({ _tag: "Refused", error })
const accepted = <A>(change: Change, answer: (after: Places) => A): Decision<A, never> => ({
  _tag: "Accepted",
  change,
  answer
})

/**
 * A message waiting for the writer. `Decide` messages are decided in memory and written together with the others of
 * their batch; `Alone` messages (check-in: it pays through the Ledger entity first) run by themselves in between.
 */
type Job =
  | {
    readonly _tag: "Decide"
    /** Read the places from the database again before deciding (the event changed outside the entity). */
    readonly reload: boolean
    readonly decide: (context: Context) => Decision<unknown, unknown>
    /** The answer when the event does not exist (any more). */
    readonly missing: Exit.Exit<unknown, unknown>
    readonly reply: Deferred.Deferred<unknown, unknown>
  }
  | {
    readonly _tag: "Alone"
    readonly run: (context: Context) => Effect.Effect<readonly [unknown, Places], unknown, CurrentTenant>
    readonly reply: Deferred.Deferred<unknown, unknown>
  }

/** Check-in (decisions D8): the organiser pays the attendee through the Ledger entity, then the RSVP is `attended`. */
const checkIn = (
  ledger: LedgerService,
  repo: EventPlacesRepo,
  input: { readonly attendeeId: number; readonly actorId: number },
  { event, now, places }: Context
) =>
  Effect.gen(function*() {
    if (event.status === "cancelled") return yield* refuse.cancelled()
    if (!checkInWindowOpen(event, now)) {
      return yield* new CheckinWindowClosed({
        message: "Check-in opens 30 minutes before the start and closes 24 hours after the end"
      })
    }
    const status = places.rsvps.get(input.attendeeId)
    const cents = checkInCents(event)
    const result = (transactionId: number | null, already: boolean): CheckInResult => ({
      event_id: event.id as EventId,
      attendee_id: input.attendeeId as UserId,
      status: "attended",
      credited_hours: fromCents(cents),
      transaction_id: transactionId as TransactionId | null,
      already_checked_in: already
    })
    if (status === "attended") {
      const earlier = yield* repo.checkIn(event.id, input.attendeeId)
      const transactionId = Option.flatMap(earlier, (row) => Option.fromNullable(row.checkin_transaction_id))
      return [result(Option.match(transactionId, { onNone: () => null, onSome: Number }), true), places] as const
    }
    if (!canCheckIn(status) || input.attendeeId === event.organiserId) {
      return yield* new NotAttending({ message: "This member has no RSVP to this event", field: "attendeeId" })
    }
    // The ledger's idempotency key names event and attendee: a retry after a failure below pays once.
    const posted = yield* ledger.payCheckIn({
      eventId: event.id,
      organiserId: event.organiserId,
      attendeeId: input.attendeeId,
      cents,
      description: `Check-in: ${event.title}`,
      createdBy: input.actorId
    })
    yield* repo.markAttended(event, {
      userId: input.attendeeId,
      transactionId: posted.transactionId,
      cents,
      by: input.actorId
    })
    const after = applyChange(places, { ...noChange, rsvps: [[input.attendeeId, "attended"]] })
    return [result(posted.transactionId, false), after] as const
  })

/**
 * The Event entity of one event. Every capacity-affecting message is decided in memory, strictly one after the
 * other in arrival order, so a full event is never overbooked and the waitlist order is exact. Messages that queue
 * up while a write is in flight form the next batch: they are decided in order on the places the earlier ones left,
 * written in ONE database transaction (one commit for the batch), and only then answered. Places and the waitlist
 * are loaded from the database when the entity starts and after a failed write; the event row (times, capacity,
 * status) is read once per batch, because edits, cancels and deletes happen outside the entity.
 *
 * A defect (an SQL error, an exception, a hang) fails only the message that caused it: the others of its batch are
 * decided again one by one, and the writer fiber survives whatever a batch does.
 */
export const EventEntityLive = EventEntity.toLayer(
  Effect.gen(function*() {
    const [tenantPart, eventPart] = (yield* Entity.CurrentAddress).entityId.split(":")
    const tenantId = Number(tenantPart)
    const eventId = Number(eventPart)
    const directory = yield* TenantDirectory
    const repo = boundedRepo(yield* EventPlacesRepo)
    const ledger = yield* LedgerService
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
              ? Deferred.complete(job.reply, job.missing)
              : Deferred.fail(job.reply, eventNotFound()), { discard: true })
        }
        const event = facts.value
        const settings = settingsOf(tenant)
        const now = new Date(yield* Clock.currentTimeMillis)
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
          if (job.reload) {
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
      yield* serve(jobs).pipe(Effect.catchAllCause((cause) => {
        memory = null
        return failAll(jobs, cause)
      }))
    })
    yield* Effect.forkScoped(Effect.forever(writeNext))

    /** Queues a message for the writer and waits for its answer. */
    const submit = <A, E>(job: (reply: Deferred.Deferred<unknown, unknown>) => Job) =>
      Effect.gen(function*() {
        const reply = yield* Deferred.make<unknown, unknown>()
        yield* Queue.offer(queue, job(reply))
        return (yield* Deferred.await(reply)) as A
      }) as Effect.Effect<A, E>

    const decide = <A, E>(
      decide: (context: Context) => Decision<A, E>,
      options: { readonly reload?: boolean; readonly missing?: Exit.Exit<A, E | NotFound> } = {}
    ) =>
      submit<A, E | NotFound>((reply) => ({
        _tag: "Decide",
        reload: options.reload ?? false,
        decide,
        missing: options.missing ?? Exit.fail(eventNotFound()),
        reply
      }))

    const Rsvp = ({ payload }: { readonly payload: { userId: number; isApproved: boolean; status: RsvpChoice } }) =>
      decide(({ event, now, places, settings }) => {
        const input = { userId: payload.userId, choice: payload.status, isApproved: payload.isApproved }
        const decision = decideRsvp(event, places, input, settings, now)
        if (decision._tag === "Refused") return refused(refuse[decision.reason]())
        return accepted(decision.change, (after): RsvpResult => {
          const position = positionOf(after, payload.userId)
          return decision.waitlisted && position !== null
            ? { status: "waitlisted", waitlist_position: position, counts: countsOf(after) }
            : { status: after.rsvps.get(payload.userId) ?? payload.status, counts: countsOf(after) }
        })
      })

    const RemoveRsvp = ({ payload }: { readonly payload: { userId: number } }) =>
      decide(({ event, now, places, settings }) => {
        if (places.rsvps.get(payload.userId) === "attended") return refused(refuse.attended())
        const change = decideRemoval(event, places, payload.userId, settings, now)
        const removed = change.rsvps.length > 0 || change.leaveWaitlist.length > 0
        return accepted(removed ? change : noChange, (after): RsvpRemoved => ({ removed, counts: countsOf(after) }))
      })

    const JoinWaitlist = ({ payload }: { readonly payload: { userId: number; isApproved: boolean } }) =>
      decide((
        { event, now, places, settings }
      ): Decision<WaitlistJoined, EventCancelled | EventEnded | MembersOnly | WaitlistNotNeeded | EventFull> => {
        if (event.status === "cancelled") return refused(refuse.cancelled())
        if (hasEnded(event, now)) return refused(refuse.ended())
        if (event.membersOnly && !payload.isApproved) return refused(refuse.members_only())
        const current = places.rsvps.get(payload.userId)
        if (current === "going" || current === "attended") {
          return refused(new WaitlistNotNeeded({ message: "You already have a place at this event" }))
        }
        const joined = (after: Places): WaitlistJoined => ({
          waitlist_position: positionOf(after, payload.userId)!,
          counts: countsOf(after)
        })
        if (positionOf(places, payload.userId) !== null) return accepted(noChange, joined)
        if (countsOf(places).going < (event.maxAttendees ?? Number.POSITIVE_INFINITY)) {
          return refused(new WaitlistNotNeeded({ message: "This event has free places: RSVP `going` instead" }))
        }
        if (!settings.waitlistEnabled) return refused(refuse.full())
        return accepted({ ...noChange, joinWaitlist: [payload.userId] }, joined)
      })

    const LeaveWaitlist = ({ payload }: { readonly payload: { userId: number } }) =>
      decide(({ places }) =>
        positionOf(places, payload.userId) === null
          ? refused(NotFound.of("Waitlist entry"))
          : accepted(
            { ...noChange, leaveWaitlist: [payload.userId] },
            (after): WaitlistLeft => ({ left: true, counts: countsOf(after) })
          )
      )

    const Refresh = () =>
      decide(
        ({ event, now, places, settings }) => {
          const change = promotions(event, places, settings, now)
          return accepted(change, () => ({ promoted: change.promoted }))
        },
        // The event changed outside the entity: read its places again rather than trust what is remembered.
        { reload: true, missing: Exit.succeed({ promoted: [] }) }
      ).pipe(Effect.catchTag("NotFound", () => Effect.succeed({ promoted: [] as ReadonlyArray<number> })))

    const CheckIn = ({ payload }: { readonly payload: { attendeeId: number; actorId: number } }) =>
      submit<
        CheckInResult,
        NotFound | EventCancelled | CheckinWindowClosed | NotAttending | InsufficientBalance
      >((reply) => ({ _tag: "Alone", run: (context) => checkIn(ledger, repo, payload, context), reply }))

    return EventEntity.of({ Rsvp, RemoveRsvp, JoinWaitlist, LeaveWaitlist, Refresh, CheckIn })
  }),
  // A defect fails its own message only: without this, the entity would restart and replay every message in
  // flight, the poisoned one included, and wedge the event in a restart loop.
  { concurrency: "unbounded", maxIdleTime: "5 minutes", disableFatalDefects: true }
)
