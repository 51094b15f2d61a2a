import type { EventStatus } from "@timebank/domain"
import { Effect } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { EventRow } from "./EventRepo.js"

/** What a calendar export reads of an event row. */
export type CalendarSource = Pick<
  EventRow,
  | "id"
  | "user_id"
  | "title"
  | "description"
  | "start_time"
  | "end_time"
  | "location"
  | "online_link"
  | "status"
  | "is_recurring_template"
  | "parent_event_id"
  | "created_at"
  | "updated_at"
>

/** The stored recurrence of a template: its RRULE text and the zone its occurrences were expanded in. */
export interface CalendarRule {
  readonly event_id: string
  readonly rrule: string | null
  readonly timezone: string
}

/** An occurrence row of a template. */
export interface CalendarOccurrence {
  readonly parent_event_id: string
  readonly start_time: Date
  readonly status: EventStatus
  readonly updated_at: Date
}

/**
 * The reads of the ICS export beyond the event lists: events by id (the templates of listed occurrences), the
 * templates' recurrence rules and their occurrence rows — each one statement for a whole export.
 */
export class CalendarRepo extends Effect.Service<CalendarRepo>()("CalendarRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      eventsByIds: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<CalendarSource>>([])
          : db.query((tenantId) =>
            sql<CalendarSource>`
              SELECT id, user_id, title, description, start_time, end_time, location, online_link, status,
                     is_recurring_template, parent_event_id, created_at, updated_at
              FROM events WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[])`
          ),

      /** Rule rows by template id (unique index on event_id). */
      rules: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, CalendarRule>())
          : db.query((tenantId) =>
            sql<CalendarRule>`
              SELECT event_id, rrule, timezone FROM event_recurrence_rules
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(templateIds)}::bigint[])`.pipe(
              Effect.map((rows) => new Map(rows.map((r) => [Number(r.event_id), r])))
            )
          ),

      /** Occurrence rows per template, by start (index `events_parent`). */
      occurrences: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, ReadonlyArray<CalendarOccurrence>>())
          : db.query((tenantId) =>
            sql<CalendarOccurrence>`
              SELECT parent_event_id, start_time, status, updated_at FROM events
              WHERE tenant_id = ${tenantId} AND parent_event_id = ANY(${pgArray(templateIds)}::bigint[])
              ORDER BY parent_event_id, start_time`.pipe(
              Effect.map((rows) => {
                const byTemplate = new Map<number, Array<CalendarOccurrence>>()
                for (const row of rows) {
                  const id = Number(row.parent_event_id)
                  const list = byTemplate.get(id)
                  if (list === undefined) byTemplate.set(id, [row])
                  else list.push(row)
                }
                return byTemplate as ReadonlyMap<number, ReadonlyArray<CalendarOccurrence>>
              })
            )
          )
    } as const
  })
}) {}
