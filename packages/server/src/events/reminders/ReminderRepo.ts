import { EventStatus, ReminderChannel, ReminderOffset, ReminderStatus, RsvpStatus } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, DbInt, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `event_reminders` as the API shows it. */
export const ReminderRow = Schema.Struct({
  id: DbInt,
  offset_minutes: ReminderOffset,
  channel: ReminderChannel,
  status: ReminderStatus,
  scheduled_for: DbDate
})
export type ReminderRow = typeof ReminderRow.Type

/** What setting reminders needs to know of the event and of the caller's answer to it. */
export const ReminderTarget = Schema.Struct({
  start_time: DbDate,
  status: EventStatus,
  rsvp: Schema.NullOr(RsvpStatus)
})
export type ReminderTarget = typeof ReminderTarget.Type

/**
 * Keeps the caller's pending reminders on time when the event's start moves: `scheduled_for` = start − offset.
 * Call it in the transaction that changes `start_time` (sent, cancelled and failed reminders keep their time).
 */
export const rescheduleReminders = (eventId: number) =>
  Effect.flatMap(TenantSql, (db) =>
    db.query((tenantId) =>
      db.sql`UPDATE event_reminders r
        SET scheduled_for = e.start_time - make_interval(mins => r.offset_minutes), updated_at = now()
        FROM events e
        WHERE e.tenant_id = ${tenantId} AND e.id = ${eventId}
          AND r.tenant_id = ${tenantId} AND r.event_id = e.id AND r.status = 'pending'`
    )).pipe(Effect.asVoid, Effect.withSpan("Reminders.reschedule", { attributes: { eventId } }))

/** Members' own reminders of an event (decisions D8), for the current tenant. */
export class ReminderRepo extends Effect.Service<ReminderRepo>()("ReminderRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** The event with the user's RSVP status, if the event exists in this community. */
    const target = (eventId: number, userId: number) =>
      db.query((tenantId) =>
        sql`
          SELECT e.start_time, e.status, r.status AS rsvp FROM events e
          LEFT JOIN event_rsvps r ON r.event_id = e.id AND r.user_id = ${userId} AND r.tenant_id = ${tenantId}
          WHERE e.tenant_id = ${tenantId} AND e.id = ${eventId}`.pipe(decodeFirst(ReminderTarget))
      )

    const ofUser = (eventId: number, userId: number) =>
      db.query((tenantId) =>
        sql`
          SELECT id, offset_minutes, channel, status, scheduled_for FROM event_reminders
          WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}
          ORDER BY scheduled_for, id`.pipe(decodeRows(ReminderRow))
      )

    /**
     * Makes the user's set exactly `wanted`: offsets not wanted go, wanted ones are added as `pending` (start −
     * offset) or updated — except those already `sent`, which stay as they are so that nothing goes out twice.
     * Run it in a transaction.
     */
    const replace = (
      eventId: number,
      userId: number,
      start: Date,
      wanted: ReadonlyArray<{ readonly offset_minutes: number; readonly channel: string }>
    ) =>
      db.query((tenantId) =>
        Effect.gen(function*() {
          const offsets = wanted.map((w) => w.offset_minutes)
          yield* sql`DELETE FROM event_reminders
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}
              AND NOT (offset_minutes = ANY(${pgArray(offsets)}::int[]))`
          if (wanted.length === 0) return
          // A failed or cancelled reminder asked for again is a new request: its old delivery record must not
          // count as "already delivered".
          yield* sql`DELETE FROM event_reminder_deliveries d USING event_reminders r
            WHERE r.tenant_id = ${tenantId} AND r.event_id = ${eventId} AND r.user_id = ${userId}
              AND r.status IN ('failed', 'cancelled') AND d.kind = 'user' AND d.reminder_id = r.id`
          yield* sql`
            INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, status, scheduled_for)
            SELECT ${tenantId}, ${eventId}, ${userId}, t.o, t.c, 'pending',
                   ${start}::timestamptz - make_interval(mins => t.o)
            FROM unnest(${pgArray(offsets)}::int[], ${pgArray(wanted.map((w) => w.channel))}::text[]) AS t(o, c)
            ON CONFLICT (event_id, user_id, offset_minutes) DO UPDATE
              SET channel = EXCLUDED.channel, status = 'pending', scheduled_for = EXCLUDED.scheduled_for,
                  claimed_at = NULL, sent_at = NULL, updated_at = now()
              WHERE event_reminders.status <> 'sent'`
        })
      )

    return { target, ofUser, replace } as const
  })
}) {}
