import type { EventCursor, EventStatus, EventWhen } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { likePattern } from "../platform/SqlErrors.js"
import { decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EVENT_COLUMNS, type EventInsert, type EventPatch, EventRow } from "./EventRow.js"

export interface EventFilters {
  readonly userId?: number | undefined
  readonly categoryId?: number | undefined
  readonly search?: string | undefined
}

export interface PublicEventsQuery extends EventFilters {
  readonly when: EventWhen
  readonly now: Date
  /** Only events after this card in list order (the cursor). */
  readonly after?: EventCursor | undefined
  /** Rows to fetch: one more than the page, to know whether there is more. */
  readonly limit: number
}

export interface AdminEventsQuery extends EventFilters {
  readonly status?: EventStatus | undefined
  readonly when?: EventWhen | undefined
  readonly now: Date
  readonly page: number
  readonly perPage: number
}

const Count = Schema.Struct({ n: Schema.Int })

/**
 * Events of the current tenant, one row each: read, listed, written, cancelled and deleted. Lists read in the order
 * of `events_tenant_start` (start time, id). What goes with an event lives in its own repo: occurrences of a series
 * (OccurrenceRepo), answers (AttendeesRepo), polls (EventPollsRepo), covers (EventCoverRepo).
 */
export class EventRepo extends Effect.Service<EventRepo>()("EventRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(EVENT_COLUMNS)
    const rows = decodeRows(EventRow)
    const first = decodeFirst(EventRow)

    /** Conditions on the columns of `alias` (a fixed name of this file, never input). */
    const filterConditions = (tenantId: number, f: EventFilters, alias = "events") => {
      const col = (name: string) => sql.literal(`${alias}.${name}`)
      const conditions = [sql`${col("tenant_id")} = ${tenantId}`]
      if (f.userId !== undefined) conditions.push(sql`${col("user_id")} = ${f.userId}`)
      if (f.categoryId !== undefined) conditions.push(sql`${col("category_id")} = ${f.categoryId}`)
      if (f.search !== undefined && f.search !== "") {
        const pattern = likePattern(f.search)
        conditions.push(sql`(${col("title")} ILIKE ${pattern} OR ${col("description")} ILIKE ${pattern})`)
      }
      return conditions
    }

    /** Upcoming: not yet ended (end, or start when there is none, is now or later); past: ended. */
    const whenCondition = (when: EventWhen, now: Date, alias = "events") => {
      const ends = sql.literal(`COALESCE(${alias}.end_time, ${alias}.start_time)`)
      return when === "upcoming" ? sql`${ends} >= ${now}` : sql`${ends} < ${now}`
    }

    /** The conditions an event must meet to be listed: the filters, active, and in the `when` half. */
    const publicConditions = (tenantId: number, q: PublicEventsQuery, alias: string) => [
      ...filterConditions(tenantId, q, alias),
      sql`${sql.literal(alias)}.status = 'active'`,
      whenCondition(q.when, q.now, alias)
    ]

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM events WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(first)
        ),

      byIds: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<EventRow>>([])
          : db.query((tenantId) =>
            sql`SELECT ${columns} FROM events
              WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[])`.pipe(rows)
          ),

      /**
       * Active events, upcoming soonest first or past most recent first, after the cursor's card. A recurring series
       * is one card: the template is its definition and never listed, and of its occurrences that qualify only the
       * first in list order is (no qualifying sibling comes before it). The card set does not depend on the cursor,
       * so keyset pages neither repeat nor skip; the sibling test is an index probe on `events_parent`.
       */
      listPublic: (q: PublicEventsQuery) =>
        db.query((tenantId) => {
          const upcoming = q.when === "upcoming"
          const before = upcoming ? sql.literal("<") : sql.literal(">")
          const conditions = [
            ...publicConditions(tenantId, q, "e"),
            sql`NOT e.is_recurring_template`,
            sql`(e.parent_event_id IS NULL OR NOT EXISTS (
              SELECT 1 FROM events s
              WHERE s.parent_event_id IS NOT NULL AND s.parent_event_id = e.parent_event_id
                AND ${sql.and(publicConditions(tenantId, q, "s"))}
                AND (s.start_time, s.id) ${before} (e.start_time, e.id)))`
          ]
          if (q.after !== undefined) {
            const [ms, id] = q.after
            conditions.push(
              sql`(e.start_time, e.id) ${upcoming ? sql.literal(">") : sql.literal("<")} (${new Date(ms)}, ${id})`
            )
          }
          return (upcoming
            ? sql`SELECT ${columns} FROM events e WHERE ${sql.and(conditions)}
                ORDER BY e.start_time, e.id LIMIT ${q.limit}`
            : sql`SELECT ${columns} FROM events e WHERE ${sql.and(conditions)}
                ORDER BY e.start_time DESC, e.id DESC LIMIT ${q.limit}`).pipe(rows)
        }),

      /** Every status, with the total for offset paging. */
      listAdmin: (q: AdminEventsQuery) =>
        db.query((tenantId) => {
          const conditions = filterConditions(tenantId, q)
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.when !== undefined) conditions.push(whenCondition(q.when, q.now))
          const where = sql.and(conditions)
          const offset = (q.page - 1) * q.perPage
          return Effect.all({
            rows: (q.when === "upcoming"
              ? sql`SELECT ${columns} FROM events WHERE ${where}
                  ORDER BY start_time, id LIMIT ${q.perPage} OFFSET ${offset}`
              : sql`SELECT ${columns} FROM events WHERE ${where}
                  ORDER BY start_time DESC, id DESC LIMIT ${q.perPage} OFFSET ${offset}`).pipe(rows),
            total: sql`SELECT count(*)::int AS n FROM events WHERE ${where}`.pipe(
              decodeSingle(Count),
              Effect.map((count) => count.n)
            )
          }, { concurrency: 2 })
        }),

      insert: (e: EventInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO events ${sql.insert({ tenant_id: tenantId, ...e })} RETURNING ${columns}`.pipe(
            decodeSingle(EventRow)
          )
        ),

      update: (id: number, patch: EventPatch) =>
        db.query((tenantId) =>
          sql`
            UPDATE events SET ${sql.update({ ...patch, updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(first)
        ),

      /** Links the event to a standalone series (or unlinks it with null). */
      setSeries: (id: number, seriesId: number | null) =>
        db.query((tenantId) =>
          sql`
            UPDATE events SET series_id = ${seriesId}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(first)
        ),

      /** Active → cancelled in one statement, so that of two cancels at once only one succeeds. */
      cancel: (id: number, reason: string | null) =>
        db.query((tenantId) =>
          sql`
            UPDATE events SET status = 'cancelled', cancel_reason = ${reason}, cancelled_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'active'
            RETURNING ${columns}`.pipe(first)
        ),

      /** Hard delete; RSVPs, waitlist entries, reminders and poll links go with the row (foreign keys). */
      delete: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM events WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING ${columns}`.pipe(first)
        )
    } as const
  })
}) {}
