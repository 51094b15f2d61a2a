import type { EventCursor, EventStatus, EventWhen, RecurrenceFrequency, RsvpCounts, RsvpStatus } from "@timebank/domain"
import { Effect, Option } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { likePattern } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `events`. */
export interface EventRow {
  readonly id: string
  readonly tenant_id: string
  readonly user_id: string
  readonly title: string
  readonly description: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly location: string | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly max_attendees: number | null
  readonly is_online: boolean
  readonly online_link: string | null
  readonly video_url: string | null
  readonly allow_remote_attendance: boolean
  readonly image_url: string | null
  readonly cover_image: string | null
  readonly category_id: string | null
  readonly group_id: string | null
  readonly federated_visibility: string
  readonly members_only: boolean
  readonly status: EventStatus
  readonly cancel_reason: string | null
  readonly cancelled_at: Date | null
  readonly is_recurring_template: boolean
  readonly parent_event_id: string | null
  /** `YYYY-MM-DD`. */
  readonly occurrence_date: string | null
  readonly series_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** Columns a create writes (the rest keep their defaults). */
export interface EventInsert {
  readonly user_id: number
  readonly title: string
  readonly description: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly location: string | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly max_attendees: number | null
  readonly is_online: boolean
  readonly online_link: string | null
  readonly video_url: string | null
  readonly allow_remote_attendance: boolean
  readonly image_url: string | null
  readonly category_id: number | null
  readonly group_id: number | null
  readonly federated_visibility: string
  readonly members_only: boolean
}

/** Columns an edit may set; a missing key leaves the column as it is. */
export type EventPatch = Partial<Omit<EventInsert, "user_id" | "members_only">>

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

/** The caller's own answer to an event: RSVP status and place on the waitlist. */
export interface ViewerStatus {
  readonly rsvp: RsvpStatus | null
  readonly position: number | null
}

/** What the cards of a recurring series show about it, per template. */
export interface SeriesSummary {
  readonly frequency: RecurrenceFrequency | null
  /** Occurrences that are not cancelled, past ones included. */
  readonly count: number
}

/** An upcoming date of a recurring series (detail). */
export interface SeriesOccurrenceRow {
  readonly id: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly occurrence_date: string | null
}

/** The most upcoming occurrences a detail lists (spec "Limits": `series_occurrences`). */
export const SERIES_OCCURRENCES_MAX = 50

/** What a cascade needs of an occurrence. */
export interface OccurrenceRow {
  readonly id: string
  readonly status: EventStatus
}

// `occurrence_date` as text: the driver would turn a date into a local-midnight Date.
const COLUMNS = `id, tenant_id, user_id, title, description, start_time, end_time, location, latitude, longitude,
  max_attendees, is_online, online_link, video_url, allow_remote_attendance, image_url, cover_image, category_id,
  group_id, federated_visibility, members_only, status, cancel_reason, cancelled_at, is_recurring_template,
  parent_event_id, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date, series_id, created_at, updated_at`

/** The columns of an `EventRow`, for other event repos' RETURNING lists. */
export const EVENT_COLUMNS = COLUMNS

/**
 * Events of the current tenant, and what lists show with them (counts, poll links, the viewer's own RSVP). Lists
 * read in the order of `events_tenant_start` (start time, id); relations are read for a whole page at once.
 */
export class EventRepo extends Effect.Service<EventRepo>()("EventRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)
    const first = (rows: ReadonlyArray<EventRow>) => Option.fromNullable(rows[0])

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
          sql<EventRow>`SELECT ${columns} FROM events WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map(first)
          )
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
          return upcoming
            ? sql<EventRow>`SELECT ${columns} FROM events e WHERE ${sql.and(conditions)}
                ORDER BY e.start_time, e.id LIMIT ${q.limit}`
            : sql<EventRow>`SELECT ${columns} FROM events e WHERE ${sql.and(conditions)}
                ORDER BY e.start_time DESC, e.id DESC LIMIT ${q.limit}`
        }),

      /** Frequency and occurrence count of each recurring template: one statement for a page. */
      seriesSummaries: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, SeriesSummary>())
          : db.query((tenantId) =>
            sql<{ id: string; frequency: RecurrenceFrequency | null; count: number }>`
              SELECT t.id, r.frequency, (
                SELECT count(*)::int FROM events o
                WHERE o.parent_event_id IS NOT NULL AND o.parent_event_id = t.id
                  AND o.tenant_id = ${tenantId} AND o.status = 'active'
              ) AS count
              FROM events t
              LEFT JOIN event_recurrence_rules r ON r.event_id = t.id AND r.tenant_id = ${tenantId}
              WHERE t.tenant_id = ${tenantId} AND t.id = ANY(${pgArray(templateIds)}::bigint[])`.pipe(
              Effect.map((rows) => new Map(rows.map((r) => [Number(r.id), { frequency: r.frequency, count: r.count }])))
            )
          ),

      /** Up to 50 occurrences of a template that start at `now` or later and are not cancelled, soonest first. */
      upcomingOccurrences: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql<SeriesOccurrenceRow>`
            SELECT id, start_time, end_time, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date FROM events
            WHERE parent_event_id IS NOT NULL AND parent_event_id = ${templateId} AND tenant_id = ${tenantId}
              AND status = 'active' AND start_time >= ${now}
            ORDER BY start_time, id LIMIT ${SERIES_OCCURRENCES_MAX}`
        ),

      /** Links the event to a standalone series (or unlinks it with null). */
      setSeries: (id: number, seriesId: number | null) =>
        db.query((tenantId) =>
          sql<EventRow>`
            UPDATE events SET series_id = ${seriesId}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(Effect.map(first))
        ),

      /** Every status, with the total for offset paging. */
      listAdmin: (q: AdminEventsQuery) =>
        db.query((tenantId) => {
          const conditions = filterConditions(tenantId, q)
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.when !== undefined) conditions.push(whenCondition(q.when, q.now))
          const where = sql.and(conditions)
          const offset = (q.page - 1) * q.perPage
          return Effect.all({
            rows: q.when === "upcoming"
              ? sql<EventRow>`SELECT ${columns} FROM events WHERE ${where}
                  ORDER BY start_time, id LIMIT ${q.perPage} OFFSET ${offset}`
              : sql<EventRow>`SELECT ${columns} FROM events WHERE ${where}
                  ORDER BY start_time DESC, id DESC LIMIT ${q.perPage} OFFSET ${offset}`,
            total: sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE ${where}`.pipe(
              Effect.map((rows) => rows[0]?.n ?? 0)
            )
          }, { concurrency: 2 })
        }),

      insert: (e: EventInsert) =>
        db.query((tenantId) =>
          sql<EventRow>`INSERT INTO events ${sql.insert({ tenant_id: tenantId, ...e })} RETURNING ${columns}`.pipe(
            Effect.map((rows) => rows[0]!)
          )
        ),

      update: (id: number, patch: EventPatch) =>
        db.query((tenantId) =>
          sql<EventRow>`
            UPDATE events SET ${sql.update({ ...patch, updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(Effect.map(first))
        ),

      /** Active → cancelled in one statement, so that of two cancels at once only one succeeds. */
      cancel: (id: number, reason: string | null) =>
        db.query((tenantId) =>
          sql<EventRow>`
            UPDATE events SET status = 'cancelled', cancel_reason = ${reason}, cancelled_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'active'
            RETURNING ${columns}`.pipe(Effect.map(first))
        ),

      /** Cancels a template's occurrences that start after `now` and are not cancelled yet; returns their ids. */
      cancelFutureOccurrences: (templateId: number, reason: string | null, now: Date) =>
        db.query((tenantId) =>
          sql<{ id: string }>`
            UPDATE events SET status = 'cancelled', cancel_reason = ${reason}, cancelled_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time > ${now}
              AND status = 'active'
            RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => Number(r.id))))
        ),

      /** A template's occurrences that start after `now` (the ones its delete removes). */
      futureOccurrences: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql<OccurrenceRow>`SELECT id, status FROM events
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time > ${now}`
        ),

      /** Occurrences that started by `now` leave the series: `parent_event_id` becomes null. Returns their ids. */
      detachPastOccurrences: (templateId: number, now: Date) =>
        db.query((tenantId) =>
          sql<{ id: string }>`
            UPDATE events SET parent_event_id = NULL, updated_at = now()
            WHERE tenant_id = ${tenantId} AND parent_event_id = ${templateId} AND start_time <= ${now}
            RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => Number(r.id))))
        ),

      /** Hard delete; RSVPs, waitlist entries, reminders and poll links go with the row (foreign keys). */
      delete: (id: number) =>
        db.query((tenantId) =>
          sql<EventRow>`DELETE FROM events WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING ${columns}`.pipe(
            Effect.map(first)
          )
        ),

      deleteMany: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<number>>([])
          : db.query((tenantId) =>
            sql<{ id: string }>`DELETE FROM events WHERE tenant_id = ${tenantId} AND id IN ${sql.in(ids)}
              RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => Number(r.id))))
          ),

      /**
       * Who hears that these events are off: members going, interested or invited, and those waiting, each once,
       * without the organiser. One statement.
       */
      recipients: (eventIds: ReadonlyArray<number>, organiserId: number) =>
        eventIds.length === 0
          ? Effect.succeed<ReadonlyArray<number>>([])
          : db.query((tenantId) =>
            sql<{ user_id: string }>`
              SELECT user_id FROM event_rsvps
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                -- the statuses that hear about a cancellation or deletion (spec "Event-related notifications")
                AND status IN ('going', 'interested', 'invited') AND user_id <> ${organiserId}
              UNION
              SELECT user_id FROM event_waitlist
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                AND user_id <> ${organiserId}
              ORDER BY user_id`.pipe(Effect.map((rows) => rows.map((r) => Number(r.user_id))))
          ),

      /** Going (attended included), interested and waiting per event: one grouped query for a page. */
      counts: (eventIds: ReadonlyArray<number>) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, RsvpCounts>())
          : db.query((tenantId) =>
            sql<{ event_id: string; going: number; interested: number; waitlist: number }>`
              SELECT event_id,
                     count(*) FILTER (WHERE kind IN ('going', 'attended'))::int AS going,
                     count(*) FILTER (WHERE kind = 'interested')::int AS interested,
                     count(*) FILTER (WHERE kind = 'waiting')::int AS waitlist
              FROM (
                SELECT event_id, status AS kind FROM event_rsvps
                WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                  AND status IN ('going', 'attended', 'interested')
                UNION ALL
                SELECT event_id, 'waiting' FROM event_waitlist
                WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
              ) AS answers
              GROUP BY event_id`.pipe(
              Effect.map((rows) =>
                new Map(rows.map((r) => [
                  Number(r.event_id),
                  { going: r.going, interested: r.interested, waitlist: r.waitlist }
                ]))
              )
            )
          ),

      /** The viewer's RSVP and waitlist position on each event of a page: one statement. */
      viewerStatus: (eventIds: ReadonlyArray<number>, userId: number) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, ViewerStatus>())
          : db.query((tenantId) =>
            sql<{ event_id: string; rsvp: RsvpStatus | null; position: number | null }>`
              SELECT event_id, status AS rsvp, NULL::int AS position FROM event_rsvps
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
                AND event_id = ANY(${pgArray(eventIds)}::bigint[])
              UNION ALL
              SELECT w.event_id, NULL, (
                SELECT count(*)::int FROM event_waitlist earlier
                WHERE earlier.tenant_id = ${tenantId} AND earlier.event_id = w.event_id AND earlier.id <= w.id
              ) FROM event_waitlist w
              WHERE w.tenant_id = ${tenantId} AND w.user_id = ${userId}
                AND w.event_id = ANY(${pgArray(eventIds)}::bigint[])`.pipe(
              Effect.map((rows) => {
                const byEvent = new Map<number, ViewerStatus>()
                for (const row of rows) {
                  const id = Number(row.event_id)
                  const known = byEvent.get(id) ?? { rsvp: null, position: null }
                  byEvent.set(id, {
                    rsvp: row.rsvp ?? known.rsvp,
                    position: row.position ?? known.position
                  })
                }
                return byEvent
              })
            )
          ),

      /** Poll ids per event, for a page. `event_polls` has no tenant column: the events join scopes it. */
      pollIds: (eventIds: ReadonlyArray<number>) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, ReadonlyArray<number>>())
          : db.query((tenantId) =>
            sql<{ event_id: string; poll_id: string }>`
              SELECT ep.event_id, ep.poll_id FROM event_polls ep JOIN events e ON e.id = ep.event_id
              WHERE e.tenant_id = ${tenantId} AND ep.event_id = ANY(${pgArray(eventIds)}::bigint[])
              ORDER BY ep.event_id, ep.poll_id`.pipe(
              Effect.map((rows) => {
                const byEvent = new Map<number, Array<number>>()
                for (const row of rows) {
                  const id = Number(row.event_id)
                  byEvent.set(id, [...(byEvent.get(id) ?? []), Number(row.poll_id)])
                }
                return byEvent as ReadonlyMap<number, ReadonlyArray<number>>
              })
            )
          ),

      /** The event's polls become exactly `pollIds` (polls of this tenant only). */
      setPolls: (eventId: number, pollIds: ReadonlyArray<number>) =>
        db.query((tenantId) =>
          Effect.gen(function*() {
            yield* sql`DELETE FROM event_polls WHERE event_id = ${eventId}
              AND event_id IN (SELECT id FROM events WHERE tenant_id = ${tenantId} AND id = ${eventId})`
            if (pollIds.length === 0) return
            yield* sql`
              INSERT INTO event_polls (event_id, poll_id)
              SELECT e.id, p.id FROM events e JOIN polls p ON p.tenant_id = e.tenant_id
              WHERE e.tenant_id = ${tenantId} AND e.id = ${eventId} AND p.id IN ${sql.in(pollIds)}
              ON CONFLICT DO NOTHING`
          })
        )
    } as const
  })
}) {}
