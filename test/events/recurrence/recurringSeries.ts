// Set-up and readers shared by the recurring-series tests (eventsRecurring.test.ts, recurringEdits.test.ts).
import { SqlClient } from "@effect/sql"
import type { CreateRecurringEvent, EventId } from "@timebank/domain"
import { DateTime as EffectDateTime, Effect } from "effect"
import { DateTime } from "luxon"
import { type ApiClient, expectOk } from "../../fixtures/client.js"
import { community, type CommunityOptions } from "../../fixtures/community.js"
import { asJson } from "../../fixtures/events.js"

export const BERLIN = "Europe/Berlin"

/** A series' dates as the wire writes them. */
export interface Occurrence {
  id: EventId
  start_time: string
  end_time: string | null
  occurrence_date: string
}

/** The create answer as the wire writes it. */
export interface Created {
  id: EventId
  title: string
  start_time: string
  end_time: string | null
  is_recurring_template: boolean
  parent_event_id: number | null
  occurrence_date: string | null
  poll_ids: Array<number>
  category_id: number | null
  series_occurrences: Array<Occurrence>
}

/** The shared community in Berlin time, its actors signed in by token. */
export const berlinCommunity = (options: CommunityOptions = {}) =>
  community({ timezone: BERLIN, signIn: "token", ...options })

/** Next week's Monday at `hour`:00 Berlin time, as an ISO instant. */
export const nextMonday = (hour = 10) =>
  DateTime.now().setZone(BERLIN).startOf("week").plus({ weeks: 1 }).set({ hour }).toUTC().toISO()!

export const berlin = (iso: string) => DateTime.fromISO(iso, { zone: BERLIN })

/** The event fields of a series starting next Monday at 10:00 for two hours, as a raw body writes them. */
export const rawBase = (overrides: Record<string, unknown> = {}) => ({
  title: "Repair café",
  description: "Bring what is broken",
  start_time: nextMonday(),
  end_time: DateTime.fromISO(nextMonday()).plus({ hours: 2 }).toUTC().toISO(),
  location: "Town hall",
  ...overrides
})

/** The same fields as the typed client's payload takes them. */
export const base = () => {
  const start = EffectDateTime.unsafeMake(nextMonday())
  return {
    title: "Repair café",
    description: "Bring what is broken",
    start_time: start,
    end_time: EffectDateTime.add(start, { hours: 2 }),
    location: "Town hall"
  }
}

/** Creates a series through the typed client; the answer as the wire wrote it. */
export const createSeries = (client: ApiClient, payload: CreateRecurringEvent) =>
  Effect.map(client.recurringEvents.create({ payload }).pipe(expectOk), (res) => asJson(res.data) as unknown as Created)

export const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie)

export const seriesRows = (templateId: number) =>
  rows((sql) =>
    sql<
      {
        id: string
        title: string
        start_time: Date
        status: string
        max_attendees: number | null
        location: string | null
      }
    >`
      SELECT id, title, start_time, status, max_attendees, location FROM events
      WHERE parent_event_id = ${templateId} ORDER BY start_time`
  )

export const ruleOf = (templateId: number) =>
  Effect.map(
    rows((sql) =>
      sql<
        {
          frequency: string
          interval_value: number
          days_of_week: Array<string> | null
          day_of_month: number | null
          rrule: string
          ends_type: string
          ends_after_count: number | null
          ends_on_date: string | null
          timezone: string
        }
      >`
        SELECT frequency, interval_value, days_of_week, day_of_month, rrule, ends_type, ends_after_count,
               to_char(ends_on_date, 'YYYY-MM-DD') AS ends_on_date, timezone
        FROM event_recurrence_rules WHERE event_id = ${templateId}`
    ),
    (r) => r[0]
  )

/** How many events `userId` organises. */
export const eventsOf = (userId: number) =>
  Effect.map(
    rows((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE user_id = ${userId}`),
    (r) => r[0]!.n
  )

/** Moves an event's start (and end, an hour later), straight in the database (to make an occurrence past). */
export const shiftTo = (id: number, start: Date) =>
  rows((sql) =>
    sql`UPDATE events SET start_time = ${start}, end_time = ${new Date(start.getTime() + 3_600_000)} WHERE id = ${id}`
  )
