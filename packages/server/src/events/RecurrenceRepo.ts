import { Effect } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EVENT_COLUMNS, type EventInsert, type EventPatch, type EventRow } from "./EventRepo.js"

/** A row of `event_recurrence_rules` as a create writes it. */
export interface RecurrenceRuleInsert {
  readonly event_id: number
  readonly frequency: "daily" | "weekly" | "monthly" | "yearly" | "custom"
  readonly interval_value: number
  readonly days_of_week: ReadonlyArray<string> | null
  readonly day_of_month: number | null
  /** The equivalent RFC 5545 RRULE for every frequency (DTSTART: the template's start in `timezone`). */
  readonly rrule: string
  readonly ends_type: "after_count" | "on_date"
  readonly ends_after_count: number | null
  readonly ends_on_date: string | null
  readonly timezone: string
}

export interface RecurrenceRuleRow extends RecurrenceRuleInsert {
  readonly id: string
}

/** One occurrence to write: the template's fields at its own times. */
export interface OccurrenceInsert extends EventInsert {
  readonly parent_event_id: number
  /** `YYYY-MM-DD` in the community's zone. */
  readonly occurrence_date: string
}

export interface CreatedOccurrence {
  readonly id: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly occurrence_date: string
}

/**
 * Recurring series of the current tenant: the rule of a template, its occurrence rows written in one statement, and
 * the edits that reach a whole series. Every statement is filtered on the tenant.
 */
export class RecurrenceRepo extends Effect.Service<RecurrenceRepo>()("RecurrenceRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(EVENT_COLUMNS)

    return {
      /** The template row of a new series (`is_recurring_template`). */
      insertTemplate: (e: EventInsert) =>
        db.query((tenantId) =>
          sql<EventRow>`INSERT INTO events ${sql.insert({ tenant_id: tenantId, ...e, is_recurring_template: true })}
            RETURNING ${columns}`.pipe(Effect.map((rows) => rows[0]!))
        ),

      insertRule: (rule: RecurrenceRuleInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO event_recurrence_rules ${
            sql.insert({
              tenant_id: tenantId,
              ...rule,
              days_of_week: rule.days_of_week === null ? null : pgArray(rule.days_of_week)
            })
          }`.pipe(Effect.asVoid)
        ),

      findRule: (templateId: number) =>
        db.query((tenantId) =>
          sql<RecurrenceRuleRow>`
            SELECT id, event_id, frequency, interval_value, days_of_week, day_of_month, rrule, ends_type,
                   ends_after_count, to_char(ends_on_date, 'YYYY-MM-DD') AS ends_on_date, timezone
            FROM event_recurrence_rules WHERE tenant_id = ${tenantId} AND event_id = ${templateId}`.pipe(
            Effect.map((rows) => rows[0])
          )
        ),

      /** Every occurrence in one multi-row INSERT, returned in start order. */
      insertOccurrences: (rows: ReadonlyArray<OccurrenceInsert>) =>
        rows.length === 0
          ? Effect.succeed<ReadonlyArray<CreatedOccurrence>>([])
          : db.query((tenantId) =>
            sql<CreatedOccurrence>`
              INSERT INTO events ${sql.insert(rows.map((row) => ({ tenant_id: tenantId, ...row })))}
              RETURNING id, start_time, end_time, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date`.pipe(
              Effect.map((created) => [...created].sort((a, b) => a.start_time.getTime() - b.start_time.getTime()))
            )
          ),

      /** Links the polls to every event (polls of this tenant only), in one statement. */
      linkPolls: (eventIds: ReadonlyArray<number>, pollIds: ReadonlyArray<number>) =>
        eventIds.length === 0 || pollIds.length === 0
          ? Effect.void
          : db.query((tenantId) =>
            sql`
              INSERT INTO event_polls (event_id, poll_id)
              SELECT e.id, p.id FROM events e JOIN polls p ON p.tenant_id = e.tenant_id
              WHERE e.tenant_id = ${tenantId} AND e.id = ANY(${pgArray(eventIds)}::bigint[])
                AND p.id = ANY(${pgArray(pollIds)}::bigint[])
              ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
          ),

      /** The events' polls become exactly `pollIds`. */
      replacePolls: (eventIds: ReadonlyArray<number>, pollIds: ReadonlyArray<number>) =>
        eventIds.length === 0 ? Effect.void : db.query((tenantId) =>
          Effect.gen(function*() {
            yield* sql`DELETE FROM event_polls WHERE event_id IN (
              SELECT id FROM events WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(eventIds)}::bigint[]))`
            if (pollIds.length === 0) return
            yield* sql`
              INSERT INTO event_polls (event_id, poll_id)
              SELECT e.id, p.id FROM events e JOIN polls p ON p.tenant_id = e.tenant_id
              WHERE e.tenant_id = ${tenantId} AND e.id = ANY(${pgArray(eventIds)}::bigint[])
                AND p.id = ANY(${pgArray(pollIds)}::bigint[])
              ON CONFLICT DO NOTHING`
          })
        ),

      /** The occurrence leaves its series (scope `single`): it becomes an ordinary event. */
      detach: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE events SET parent_event_id = NULL, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.asVoid)
        ),

      /**
       * Scope `all`: the template and its occurrences that start after `now` and are not cancelled, in one UPDATE
       * (`events_parent` serves the occurrence filter). Returns the rows as they are now, template first.
       */
      updateSeries: (templateId: number, patch: EventPatch, now: Date) =>
        db.query((tenantId) =>
          sql<EventRow>`
            UPDATE events SET ${sql.update({ ...patch, updated_at: new Date() })}
            WHERE tenant_id = ${tenantId}
              AND (id = ${templateId}
                OR (parent_event_id = ${templateId} AND start_time > ${now} AND status = 'active'))
            RETURNING ${columns}`.pipe(
            Effect.map((rows) =>
              [...rows].sort((a, b) =>
                a.is_recurring_template === b.is_recurring_template
                  ? a.start_time.getTime() - b.start_time.getTime()
                  : a.is_recurring_template
                  ? -1
                  : 1
              )
            )
          )
        )
    } as const
  })
}) {}
