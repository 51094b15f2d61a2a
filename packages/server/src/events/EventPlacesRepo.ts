import type { RsvpStatus } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { pgArray } from "../platform/SqlArrays.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { EventFacts, Places, WritePlan } from "./EventPlaces.js"

interface FactsRow {
  readonly id: string
  readonly user_id: string
  readonly title: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly status: "active" | "cancelled"
  readonly max_attendees: number | null
  readonly members_only: boolean
}

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
        sql<FactsRow>`
          SELECT id, user_id, title, start_time, end_time, status, max_attendees, members_only FROM events
          WHERE tenant_id = ${tenantId} AND id = ${eventId}`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row): EventFacts => ({
              id: Number(row.id),
              organiserId: Number(row.user_id),
              title: row.title,
              startTime: row.start_time,
              endTime: row.end_time,
              status: row.status,
              maxAttendees: row.max_attendees,
              membersOnly: row.members_only
            }))
          )
        )
      )

    const places = (eventId: number) =>
      db.query((tenantId) =>
        Effect.all({
          rsvps: sql<{ user_id: string; status: RsvpStatus }>`
            SELECT user_id, status FROM event_rsvps WHERE tenant_id = ${tenantId} AND event_id = ${eventId}`,
          waiting: sql<{ user_id: string }>`
            SELECT user_id FROM event_waitlist WHERE tenant_id = ${tenantId} AND event_id = ${eventId} ORDER BY id`
        }, { concurrency: 2 }).pipe(
          Effect.map(({ rsvps, waiting }): Places => ({
            rsvps: new Map(rsvps.map((r) => [Number(r.user_id), r.status])),
            waitlist: waiting.map((w) => Number(w.user_id))
          }))
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
        yield* outbox.appendAll(plan.events)
      }))

    /** The transaction of an attendee's earlier check-in, if they were checked in. */
    const checkIn = (eventId: number, userId: number) =>
      db.query((tenantId) =>
        sql<{ checkin_transaction_id: string | null; checked_in_at: Date | null }>`
          SELECT checkin_transaction_id, checked_in_at FROM event_rsvps
          WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]))
        )
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
        yield* outbox.append("CheckedIn", {
          event_id: event.id,
          event_title: event.title,
          organiser_id: event.organiserId,
          user_id: input.userId,
          hours: input.cents / 100,
          transaction_id: input.transactionId,
          checked_in_by: input.by
        })
      }))

    return { facts, places, write, checkIn, markAttended } as const
  })
}) {}
