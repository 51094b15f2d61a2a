import { RecurrenceFrequency } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { EVENT_COLUMNS, type EventInsert, type EventPatch, EventRow } from "../EventRow.js"

/** One occurrence to write: the template's fields at its own times. */
export interface OccurrenceInsert extends EventInsert {
  readonly parent_event_id: number
  /** `YYYY-MM-DD` in the community's zone. */
  readonly occurrence_date: string
}

/** A date of a series: what the detail and the recurring create list of each occurrence. */
export const OccurrenceDate = EventRow.pick("id", "start_time", "end_time", "occurrence_date")
export type OccurrenceDate = typeof OccurrenceDate.Type

/** What the calendar export reads of an occurrence. */
export const OccurrenceState = Schema.Struct({
  parent_event_id: DbInt,
  ...EventRow.pick("start_time", "status", "updated_at").fields
})
export type OccurrenceState = typeof OccurrenceState.Type

/** What the cards of a recurring series show about it, per template. */
export const SeriesSummary = Schema.Struct({
  id: DbInt,
  frequency: Schema.NullOr(RecurrenceFrequency),
  /** Occurrences that are not cancelled, past ones included. */
  count: Schema.Int
})
export type SeriesSummary = typeof SeriesSummary.Type

const Id = Schema.Struct({ id: DbInt })
const Occurrence = EventRow.pick("id", "status")

/** The most upcoming occurrences a detail lists (spec "Limits": `series_occurrences`). */
export const SERIES_OCCURRENCES_MAX = 50

const OCCURRENCE_DATE_COLUMNS = "id, start_time, end_time, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date"

const byStart = (a: { readonly start_time: Date }, b: { readonly start_time: Date }) =>
  a.start_time.getTime() - b.start_time.getTime()

/**
 * The rows of recurring series in `events`: a template and its occurrences (`parent_event_id`, index
 * `events_parent`), written together, edited together, cancelled and deleted together. Every statement is filtered
 * on the tenant.
 */
export class OccurrenceRepo extends Effect.Service<OccurrenceRepo>()("OccurrenceRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(EVENT_COLUMNS)
    const ids = (rows: ReadonlyArray<{ readonly id: number }>) => rows.map((r) => r.id)

    return {
      /** The template row of a new series (`is_recurring_template`). */
      insertTemplate: (e: EventInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO events ${sql.insert({ tenant_id: tenantId, ...e, is_recurring_template: true })}
            RETURNING ${columns}`.pipe(decodeSingle(EventRow))
        ),

      /** Every occurrence in one multi-row INSERT, returned in start order. */
      insertOccurrences: (rows: ReadonlyArray<OccurrenceInsert>) =>
        rows.length === 0
          ? Effect.succeed<ReadonlyArray<OccurrenceDate>>([])
          : db.query((tenantId) =>
            sql`
              INSERT INTO events ${sql.insert(rows.map((row) => ({ tenant_id: tenantId, ...row })))}
              RETURNING ${sql.literal(OCCURRENCE_DATE_COLUMNS)}`.pipe(
              decodeRows(OccurrenceDate),
              Effect.map((created) => [...created].sort(byStart))
            )
          ),

      /** Up to 50 occurrences of a template that start at `now` or later and are not cancelled, soonest first. */
      upcoming: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql`
            SELECT ${sql.literal(OCCURRENCE_DATE_COLUMNS)} FROM events
            WHERE parent_event_id IS NOT NULL AND parent_event_id = ${templateId} AND tenant_id = ${tenantId}
              AND status = 'active' AND start_time >= ${now}
            ORDER BY start_time, id LIMIT ${SERIES_OCCURRENCES_MAX}`.pipe(decodeRows(OccurrenceDate))
        ),

      /** Frequency and occurrence count of each recurring template: one statement for a page. */
      summaries: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, SeriesSummary>())
          : db.query((tenantId) =>
            sql`
              SELECT t.id, r.frequency, (
                SELECT count(*)::int FROM events o
                WHERE o.parent_event_id IS NOT NULL AND o.parent_event_id = t.id
                  AND o.tenant_id = ${tenantId} AND o.status = 'active'
              ) AS count
              FROM events t
              LEFT JOIN event_recurrence_rules r ON r.event_id = t.id AND r.tenant_id = ${tenantId}
              WHERE t.tenant_id = ${tenantId} AND t.id = ANY(${pgArray(templateIds)}::bigint[])`.pipe(
              decodeRows(SeriesSummary),
              Effect.map((rows) => new Map(rows.map((r) => [r.id, r])))
            )
          ),

      /** Occurrence rows per template, by start (index `events_parent`), for the calendar export. */
      states: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, ReadonlyArray<OccurrenceState>>())
          : db.query((tenantId) =>
            sql`
              SELECT parent_event_id, start_time, status, updated_at FROM events
              WHERE tenant_id = ${tenantId} AND parent_event_id = ANY(${pgArray(templateIds)}::bigint[])
              ORDER BY parent_event_id, start_time`.pipe(
              decodeRows(OccurrenceState),
              Effect.map((rows) => {
                const byTemplate = new Map<number, Array<OccurrenceState>>()
                for (const row of rows) {
                  const list = byTemplate.get(row.parent_event_id)
                  if (list === undefined) byTemplate.set(row.parent_event_id, [row])
                  else list.push(row)
                }
                return byTemplate as ReadonlyMap<number, ReadonlyArray<OccurrenceState>>
              })
            )
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
          sql`
            UPDATE events SET ${sql.update({ ...patch, updated_at: new Date() })}
            WHERE tenant_id = ${tenantId}
              AND (id = ${templateId}
                OR (parent_event_id = ${templateId} AND start_time > ${now} AND status = 'active'))
            RETURNING ${columns}`.pipe(
            decodeRows(EventRow),
            Effect.map((rows) =>
              [...rows].sort((a, b) =>
                a.is_recurring_template === b.is_recurring_template
                  ? byStart(a, b)
                  : a.is_recurring_template
                  ? -1
                  : 1
              )
            )
          )
        ),

      /** Cancels a template's occurrences that start after `now` and are not cancelled yet; returns their ids. */
      cancelFuture: (templateId: number, reason: string | null, now: Date) =>
        db.query((tenantId) =>
          sql`
            UPDATE events SET status = 'cancelled', cancel_reason = ${reason}, cancelled_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time > ${now}
              AND status = 'active'
            RETURNING id`.pipe(decodeRows(Id), Effect.map(ids))
        ),

      /** A template's occurrences that start after `now` (the ones its delete removes). */
      future: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql`SELECT id, status FROM events
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time > ${now}`.pipe(
            decodeRows(Occurrence)
          )
        ),

      /** Occurrences that started by `now` leave the series: `parent_event_id` becomes null. Returns their ids. */
      detachPast: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql`
            UPDATE events SET parent_event_id = NULL, updated_at = now()
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time <= ${now}
            RETURNING id`.pipe(decodeRows(Id), Effect.map(ids))
        ),

      /** Deletes these occurrences (with what hangs on them, by foreign keys); returns the ids deleted. */
      deleteMany: (occurrenceIds: ReadonlyArray<number>) =>
        occurrenceIds.length === 0
          ? Effect.succeed<ReadonlyArray<number>>([])
          : db.query((tenantId) =>
            sql`DELETE FROM events WHERE tenant_id = ${tenantId} AND id IN ${sql.in(occurrenceIds)}
              RETURNING id`.pipe(decodeRows(Id), Effect.map(ids))
          )
    } as const
  })
}) {}
