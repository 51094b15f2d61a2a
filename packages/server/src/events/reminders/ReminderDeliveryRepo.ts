import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../../platform/SqlRows.js"
import { EVENT_COLUMNS, EventRow } from "../EventRow.js"
import { type AutoKind, autoWindow, DELIVERY_BATCH, DELIVERY_KINDS, STALE_CLAIM_MS } from "./ReminderRules.js"

/** A delivery claimed by this tick (a row of `event_reminder_deliveries`). */
export const Claim = Schema.Struct({
  id: DbInt,
  tenant_id: DbInt,
  event_id: DbInt,
  user_id: DbInt,
  reminder_id: Schema.NullOr(DbInt),
  kind: Schema.Literal(...DELIVERY_KINDS)
})
export type Claim = typeof Claim.Type

/** A claimed delivery with the reminder and RSVP as they are now. */
export const DueRow = Schema.Struct({
  ...Claim.fields,
  offset_minutes: Schema.NullOr(Schema.Int),
  channel: Schema.NullOr(Schema.String),
  reminder_status: Schema.NullOr(Schema.String),
  rsvp: Schema.NullOr(Schema.String)
})
export type DueRow = typeof DueRow.Type

const CLAIM_COLUMNS = "id, tenant_id, event_id, user_id, reminder_id, kind"

/**
 * The SQL of reminder delivery. The scans and claims run over all communities (delivery runs outside any request);
 * the statements that finish a delivery name its community's tenant explicitly and run in that community's
 * transaction.
 */
export class ReminderDeliveryRepo extends Effect.Service<ReminderDeliveryRepo>()("ReminderDeliveryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const claims = decodeRows(Claim)
    /** Only one community's rows when `tenantId` is given (a job's run), else every community's. */
    const only = (column: string, tenantId: number | undefined) =>
      tenantId === undefined ? sql`` : sql`AND ${sql.literal(column)} = ${tenantId}`

    return {
      /** Claims older than an hour are deleted, so that the next scan claims them again. */
      releaseStale: (now: Date, tenantId?: number) =>
        sql`DELETE FROM event_reminder_deliveries
          WHERE status = 'claimed' AND claimed_at < ${new Date(now.getTime() - STALE_CLAIM_MS)}
            ${only("tenant_id", tenantId)}
          RETURNING id`.pipe(Effect.map((rows) => rows.length)),

      /** Pending user reminders whose time has come: claimed in one statement. */
      claimUserReminders: (now: Date, tenantId?: number) =>
        sql`
          INSERT INTO event_reminder_deliveries (tenant_id, event_id, user_id, reminder_id, kind, status, claimed_at)
          SELECT r.tenant_id, r.event_id, r.user_id, r.id, 'user', 'claimed', ${now}
          FROM (SELECT id, tenant_id, event_id, user_id FROM event_reminders
                WHERE status = 'pending' AND scheduled_for <= ${now} ${only("tenant_id", tenantId)}
                ORDER BY scheduled_for, id LIMIT ${DELIVERY_BATCH}) r
          ON CONFLICT (reminder_id) WHERE kind = 'user' DO NOTHING
          RETURNING ${sql.literal(CLAIM_COLUMNS)}`.pipe(claims),

      /** Going and interested attendees of active events starting in the kind's window: claimed in one statement. */
      claimAutomatic: (kind: AutoKind, now: Date, tenantId?: number) => {
        const { from, to } = autoWindow(kind, now)
        return sql`
          INSERT INTO event_reminder_deliveries (tenant_id, event_id, user_id, kind, status, claimed_at)
          SELECT a.tenant_id, a.event_id, a.user_id, ${kind}, 'claimed', ${now}
          FROM (SELECT e.tenant_id, e.id AS event_id, rs.user_id FROM events e
                JOIN event_rsvps rs ON rs.event_id = e.id AND rs.tenant_id = e.tenant_id
                WHERE e.status = 'active' AND e.start_time >= ${from} AND e.start_time < ${to}
                  ${only("e.tenant_id", tenantId)}
                  AND rs.status IN ('going', 'interested')
                ORDER BY e.start_time, e.id, rs.user_id LIMIT ${DELIVERY_BATCH}) a
          ON CONFLICT (event_id, kind, user_id) WHERE kind <> 'user' DO NOTHING
          RETURNING ${sql.literal(CLAIM_COLUMNS)}`.pipe(claims)
      },

      /** The claimed deliveries with the reminder and RSVP as they are now. */
      due: (claimed: ReadonlyArray<Claim>) =>
        claimed.length === 0 ? Effect.succeed<ReadonlyArray<DueRow>>([]) : sql`
          SELECT d.id, d.tenant_id, d.event_id, d.user_id, d.reminder_id, d.kind,
                 r.offset_minutes, r.channel, r.status AS reminder_status, rs.status AS rsvp
          FROM event_reminder_deliveries d
          LEFT JOIN event_reminders r ON r.id = d.reminder_id AND r.tenant_id = d.tenant_id
          LEFT JOIN event_rsvps rs
            ON rs.event_id = d.event_id AND rs.user_id = d.user_id AND rs.tenant_id = d.tenant_id
          WHERE d.id = ANY(${pgArray(claimed.map((c) => c.id))}::bigint[])
          ORDER BY d.id`.pipe(decodeRows(DueRow)),

      /** The events of these deliveries, by id, whatever their community. */
      events: (ids: ReadonlyArray<number>) =>
        ids.length === 0 ? Effect.succeed(new Map<number, EventRow>()) : sql`
          SELECT ${sql.literal(EVENT_COLUMNS)} FROM events
          WHERE id = ANY(${pgArray([...new Set(ids)])}::bigint[])`.pipe(
          decodeRows(EventRow),
          Effect.map((rows) => new Map<number, EventRow>(rows.map((row) => [row.id, row])))
        ),

      /** The claim goes: there is nothing to deliver (or the reminder was cancelled). */
      drop: (tenantId: number, due: DueRow) =>
        sql`DELETE FROM event_reminder_deliveries WHERE tenant_id = ${tenantId} AND id = ${due.id}`.pipe(
          Effect.asVoid
        ),

      /** The member's reminder is cancelled: they no longer go nor are interested. */
      cancelReminder: (tenantId: number, due: DueRow) =>
        sql`UPDATE event_reminders SET status = 'cancelled', updated_at = now()
          WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id} AND status = 'pending'`.pipe(Effect.asVoid),

      markSent: (tenantId: number, due: DueRow, now: Date) =>
        Effect.gen(function*() {
          yield* sql`UPDATE event_reminder_deliveries SET status = 'sent', sent_at = ${now}
            WHERE tenant_id = ${tenantId} AND id = ${due.id}`
          if (due.kind === "user") {
            yield* sql`UPDATE event_reminders SET status = 'sent', claimed_at = ${now}, sent_at = ${now},
              updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id}`
          }
        }),

      markFailed: (tenantId: number, due: DueRow, reason: string, now: Date) =>
        Effect.gen(function*() {
          yield* sql`UPDATE event_reminder_deliveries
            SET status = 'failed', sent_at = NULL, failure_reason = ${reason}
            WHERE tenant_id = ${tenantId} AND id = ${due.id}`
          if (due.reminder_id !== null) {
            yield* sql`UPDATE event_reminders SET status = 'failed', claimed_at = ${now}, updated_at = now()
              WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id}`
          }
        })
    } as const
  })
}) {}
