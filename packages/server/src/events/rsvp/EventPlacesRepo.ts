import { DomainEvents, RsvpStatus } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, DbInt, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { EventRow } from "../EventRow.js"
import { type EventFacts, makePlaces, type Places, type PlacesEvent, type WritePlan } from "./EventPlaces.js"

const FactsRow = EventRow.pick(
  "id",
  "user_id",
  "title",
  "start_time",
  "end_time",
  "status",
  "max_attendees",
  "members_only"
)

const factsOf = (row: typeof FactsRow.Type): EventFacts => ({
  id: row.id,
  organiserId: row.user_id,
  title: row.title,
  startTime: row.start_time,
  endTime: row.end_time,
  status: row.status,
  maxAttendees: row.max_attendees,
  membersOnly: row.members_only
})

/** A change of places as the outbox records it. */
const domainEventOf = (event: PlacesEvent) =>
  event.type === "RsvpChanged"
    ? new DomainEvents.RsvpChanged(event.payload)
    : new DomainEvents.WaitlistPromoted(event.payload)

const Answer = Schema.Struct({ user_id: DbInt, status: RsvpStatus })
const Waiting = Schema.Struct({ user_id: DbInt })

/** An attendee's check-in as recorded on their RSVP. */
export const CheckInRow = Schema.Struct({
  checkin_transaction_id: Schema.NullOr(DbInt),
  checked_in_at: Schema.NullOr(DbDate)
})
export type CheckInRow = typeof CheckInRow.Type

/**
 * The SQL of the Event entity: it reads an event's facts and places, and writes what it decided (RSVPs, waitlist,
 * reminders, outbox events) in one transaction. Only the entity calls it, so these rows have one writer per event.
 */
export class EventPlacesRepo extends Effect.Service<EventPlacesRepo>()("EventPlacesRepo", {
  dependencies: [TenantSql.Default, Outbox.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const outbox = yield* Outbox
    const { sql } = db

    const facts = (eventId: number) =>
      db.query((tenantId) =>
        sql`
          SELECT id, user_id, title, start_time, end_time, status, max_attendees, members_only FROM events
          WHERE tenant_id = ${tenantId} AND id = ${eventId}`.pipe(
          decodeFirst(FactsRow),
          Effect.map(Option.map(factsOf))
        )
      )

    const places = (eventId: number) =>
      db.query((tenantId) =>
        Effect.all({
          rsvps: sql`
            SELECT user_id, status FROM event_rsvps WHERE tenant_id = ${tenantId} AND event_id = ${eventId}`.pipe(
            decodeRows(Answer)
          ),
          waiting: sql`
            SELECT user_id FROM event_waitlist WHERE tenant_id = ${tenantId} AND event_id = ${eventId} ORDER BY id`
            .pipe(decodeRows(Waiting))
        }, { concurrency: 2 }).pipe(
          Effect.map(({ rsvps, waiting }): Places =>
            makePlaces(rsvps.map((r) => [r.user_id, r.status]), waiting.map((w) => w.user_id))
          )
        )
      )

    const writeRsvps = (tenantId: number, eventId: number, plan: WritePlan) =>
      Effect.gen(function*() {
        if (plan.upsert.length > 0) {
          yield* sql`
            INSERT INTO event_rsvps (tenant_id, event_id, user_id, status)
            SELECT ${tenantId}, ${eventId}, u, s FROM unnest(${pgArray(plan.upsert.map(([u]) => u))}::bigint[],
                                                          ${pgArray(plan.upsert.map(([, s]) => s))}::text[]) AS t(u, s)
            ON CONFLICT (event_id, user_id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()`
        }
        if (plan.remove.length > 0) {
          yield* sql`DELETE FROM event_rsvps
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ANY(${
            pgArray(plan.remove)
          }::bigint[])`
        }
        if (plan.cancelReminders.length > 0) {
          yield* sql`UPDATE event_reminders SET status = 'cancelled', updated_at = now()
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND status = 'pending'
              AND user_id = ANY(${pgArray(plan.cancelReminders)}::bigint[])`
        }
      })

    const writeWaitlist = (tenantId: number, eventId: number, plan: WritePlan) =>
      Effect.gen(function*() {
        if (plan.unqueue.length > 0) {
          yield* sql`DELETE FROM event_waitlist
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ANY(${
            pgArray(plan.unqueue)
          }::bigint[])`
        }
        // Ids are drawn in the order the rows are inserted, so the waitlist order (the id order) is the plan's.
        if (plan.enqueue.length > 0) {
          yield* sql`INSERT INTO event_waitlist (tenant_id, event_id, user_id)
            SELECT ${tenantId}, ${eventId}, u FROM unnest(${pgArray(plan.enqueue)}::bigint[]) WITH ORDINALITY AS t(u, n)
            ORDER BY t.n`
        }
      })

    /** Writes what the entity decided (RSVPs, waitlist, reminders, domain events) in one transaction. */
    const write = (eventId: number, plan: WritePlan) =>
      db.transaction(Effect.gen(function*() {
        const tenantId = yield* db.tenantId
        yield* writeRsvps(tenantId, eventId, plan)
        yield* writeWaitlist(tenantId, eventId, plan)
        yield* outbox.appendAll(plan.events.map(domainEventOf))
      }))

    /** The transaction of an attendee's earlier check-in, if they were checked in. */
    const checkIn = (eventId: number, userId: number) =>
      db.query((tenantId) =>
        sql`
          SELECT checkin_transaction_id, checked_in_at FROM event_rsvps
          WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}`.pipe(decodeFirst(CheckInRow))
      )

    /** Marks the attendee `attended` with the paying transaction, and records `CheckedIn`. */
    const markAttended = (
      event: EventFacts,
      input: { readonly userId: number; readonly transactionId: number; readonly cents: number; readonly by: number }
    ) =>
      db.transaction(Effect.gen(function*() {
        const tenantId = yield* db.tenantId
        yield* sql`UPDATE event_rsvps
          SET status = 'attended', checked_in_at = now(), checkin_transaction_id = ${input.transactionId},
              updated_at = now()
          WHERE tenant_id = ${tenantId} AND event_id = ${event.id} AND user_id = ${input.userId}`
        yield* outbox.append(
          new DomainEvents.CheckedIn({
            event_id: event.id,
            event_title: event.title,
            organiser_id: event.organiserId,
            user_id: input.userId,
            hours: input.cents / 100,
            transaction_id: input.transactionId,
            checked_in_by: input.by
          })
        )
      }))

    return { facts, places, write, checkIn, markAttended } as const
  })
}) {}
