import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema, type Stream } from "effect"
import type { Period } from "../platform/DaySeries.js"
import { DbDate, DbInt } from "../platform/SqlRows.js"
import { streamRows, tenantStream } from "../platform/SqlStreams.js"
import { TenantSql } from "../platform/TenantSql.js"

/** One line of the events export: RSVPs going (attended included, as the attendee counts do) and attended. */
export const EventExportRow = Schema.Struct({
  id: DbInt,
  title: Schema.String,
  start_time: DbDate,
  end_time: Schema.NullOr(DbDate),
  location: Schema.NullOr(Schema.String),
  going: DbInt,
  attended: DbInt,
  status: Schema.String
})
export type EventExportRow = typeof EventExportRow.Type

/**
 * What funder reports read of events (decisions D17 "Funder reports"): the events starting in a period, over
 * `events_tenant_start`, each with its RSVP counts (`event_rsvps_event_status`). Series templates are left out:
 * their occurrences are the events members attend.
 */
export class EventReports extends Effect.Service<EventReports>()("EventReports", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const rows = streamRows(EventExportRow)

    /** Events starting in `period` (cancelled ones too, with their status), by start, through a cursor. */
    const events = (period: Period): Stream.Stream<EventExportRow, never, CurrentTenant> =>
      tenantStream((tenantId) =>
        rows(sql`
          SELECT e.id, e.title, e.start_time, e.end_time, e.location, r.going, r.attended, e.status
          FROM events e
          CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE status IN ('going', 'attended'))::int AS going,
                   count(*) FILTER (WHERE status = 'attended')::int AS attended
            FROM event_rsvps WHERE event_id = e.id AND status IN ('going', 'attended')
          ) r
          WHERE e.tenant_id = ${tenantId} AND e.start_time >= ${period.from} AND e.start_time < ${period.to}
            AND NOT e.is_recurring_template
          ORDER BY e.start_time, e.id`)
      )

    return { events } as const
  })
}) {}
