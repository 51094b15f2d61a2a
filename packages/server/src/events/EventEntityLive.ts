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
import { Cause, Clock, Deferred, Effect, Exit, Option, Queue } from "effect"
import { LedgerService } from "../ledger/LedgerService.js"
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
 */
export const EventEntityLive = EventEntity.toLayer(
  Effect.gen(function*() {
    const [tenantPart, eventPart] = (yield* Entity.CurrentAddress).entityId.split(":")
    const tenantId = Number(tenantPart)
    const eventId = Number(eventPart)
    const directory = yield* TenantDirectory
    const repo = yield* EventPlacesRepo
    const ledger = yield* LedgerService
    const queue = yield* Queue.unbounded<Job>()

    /** The places as committed; null until loaded (and after a write failed). */
    let memory: Places | null = null

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
          // A failed write fails the batch: its messages are answered with the failure (writeNext).
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

    const writeNext = Effect.gen(function*() {
      const jobs = [yield* Queue.take(queue), ...(yield* Queue.takeUpTo(queue, MAX_BATCH - 1))]
      const tenant = yield* directory.find({ _tag: "Id", id: String(tenantId) })
      if (Option.isNone(tenant)) return yield* failAll(jobs, Cause.fail(eventNotFound()))
      yield* runBatch(jobs, tenant.value).pipe(
        Effect.provideService(CurrentTenant, tenant.value),
        // Messages not answered yet learn of the failure (and may retry); the next batch starts from the database.
        // An event deleted while the batch was written is an answer, not an outage: those messages get 404.
        Effect.catchAllCause((cause) =>
          Effect.gen(function*() {
            memory = null
            const gone = yield* repo.facts(eventId).pipe(
              Effect.map(Option.isNone),
              Effect.provideService(CurrentTenant, tenant.value),
              Effect.catchAllCause(() => Effect.succeed(false))
            )
            yield* failAll(jobs, gone ? Cause.fail(eventNotFound()) : cause)
          })
        )
      )
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
  { concurrency: "unbounded", maxIdleTime: "5 minutes" }
)
