import {
  CurrentTenant,
  DomainEvents,
  EventAlreadyCancelled,
  type EventDeleted,
  EventEntity,
  eventEntityId,
  type EventId,
  NotFound
} from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EventRepo } from "./EventRepo.js"
import type { EventRow } from "./EventRow.js"
import { eventSnapshot } from "./EventSnapshot.js"
import { EventEditor } from "./EventsPolicy.js"
import { OccurrenceRepo } from "./recurrence/OccurrenceRepo.js"
import { AttendeesRepo } from "./rsvp/AttendeesRepo.js"

export const eventNotFound = () => NotFound.of("Event")

/** The event a lookup found, or 404: other communities' events do not exist for the caller. */
export const foundEvent = <A, E, R>(lookup: Effect.Effect<Option.Option<A>, E, R>) =>
  Effect.flatMap(lookup, Option.match({ onNone: () => Effect.fail(eventNotFound()), onSome: Effect.succeed }))

const alreadyCancelled = () => new EventAlreadyCancelled({ message: "This event is already cancelled" })

/** How long a request waits for the event's entity to take in an edit before it answers anyway. */
const REFRESH_TIMEOUT = "5 seconds"

/** Not cancelled and not yet over: its attendees still expect it. */
const isLive = (row: Pick<EventRow, "status" | "start_time" | "end_time">, now: Date) =>
  row.status === "active" && (row.end_time ?? row.start_time).getTime() >= now.getTime()

/**
 * What happens to an event beyond its own row: cancel and delete with their cascades over a recurring series,
 * the people to notify, and the nudge to the event's cluster entity afterwards. Shared by the organiser's routes
 * and the admin routes, so that both paths do exactly the same.
 */
export class EventLifecycle extends Effect.Service<EventLifecycle>()("EventLifecycle", {
  dependencies: [EventRepo.Default, OccurrenceRepo.Default, AttendeesRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* EventRepo
    const occurrences = yield* OccurrenceRepo
    const attendees = yield* AttendeesRepo
    const outbox = yield* Outbox
    const makeClient = yield* EventEntity.client
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * Tells the event's entity that the event changed (capacity, times, status, or gone), after the change
     * committed: it promotes waiters into new places, or forgets a deleted event. A failure is logged only — the
     * change stands and the entity reads the row again on its next message.
     */
    const refresh = (eventId: number) =>
      Effect.flatMap(CurrentTenant, (tenant) => makeClient(eventEntityId(tenant.id, eventId)).Refresh({})).pipe(
        Effect.timeout(REFRESH_TIMEOUT),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("Event entity refresh failed", cause).pipe(Effect.annotateLogs({ event_id: eventId }))
        ),
        Effect.asVoid,
        Effect.withSpan("Events.refreshEntity", { attributes: { eventId } })
      )

    /**
     * Cancels the event (and, for a recurring template, its future occurrences that are not cancelled yet) and
     * records `EventCancelled` with everyone going, interested, invited or waiting — across the template and those
     * occurrences, each once, without the organiser.
     */
    const cancel = (row: EventRow, reason: string | null) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        if (row.status === "cancelled") return yield* alreadyCancelled()
        const id = row.id
        const at = yield* now
        const cancelled = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* Effect.flatMap(
            repo.cancel(id, reason),
            Option.match({ onNone: () => Effect.fail(alreadyCancelled()), onSome: Effect.succeed })
          )
          const occurrenceIds = updated.is_recurring_template
            ? yield* occurrences.cancelFuture(id, reason, at)
            : []
          const recipients = yield* attendees.recipients([id, ...occurrenceIds], updated.user_id)
          yield* outbox.append(
            new DomainEvents.EventCancelled({
              event_id: id,
              user_id: updated.user_id,
              event: eventSnapshot(updated),
              reason,
              cancelled_by: editor.userId,
              cancelled_occurrence_ids: occurrenceIds,
              recipients
            })
          )
          return updated
        }))
        // Nobody is promoted into a cancelled event: the entity only re-reads its places, so the answer does not
        // wait for it (an event with thousands of attendees would hold the organiser's request for that read).
        yield* Effect.forkDaemon(refresh(id))
        return cancelled
      }).pipe(Effect.withSpan("Events.cancelCascade"))

    /**
     * Deletes the event with its RSVPs, waitlist, reminders and poll links. A recurring template also deletes its
     * future occurrences and detaches the past ones (they stay as ordinary events). `EventDeleted` names the people
     * who still expected to attend: those of events not yet over and not cancelled (a cancelled event's people
     * were told at the cancel).
     */
    const remove = (row: EventRow) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const id = row.id
        const at = yield* now
        yield* db.transaction(Effect.gen(function*() {
          const future = row.is_recurring_template ? yield* occurrences.future(id, at) : []
          const detached = row.is_recurring_template ? yield* occurrences.detachPast(id, at) : []
          const notified = [
            ...(isLive(row, at) ? [id] : []),
            ...future.filter((o) => o.status === "active").map((o) => o.id)
          ]
          const recipients = yield* attendees.recipients(notified, row.user_id)
          const occurrenceIds = yield* occurrences.deleteMany(future.map((o) => o.id))
          const deleted = yield* foundEvent(repo.delete(id))
          yield* outbox.append(
            new DomainEvents.EventDeleted({
              event_id: id,
              user_id: deleted.user_id,
              event: eventSnapshot(deleted),
              deleted_by: editor.userId,
              deleted_occurrence_ids: occurrenceIds,
              detached_occurrence_ids: detached,
              recipients
            })
          )
        }))
        yield* refresh(id)
        return { id: id as EventId, deleted: true as const } satisfies EventDeleted
      }).pipe(Effect.withSpan("Events.deleteCascade"))

    return { cancel, remove, refresh } as const
  })
}) {}
