import { CALENDAR_LIST_CAP, type CalendarListParams, CurrentTenant, type EventId } from "@timebank/domain"
import { Clock, Effect } from "effect"
import { UserSummaries } from "../../identity/UserSummaries.js"
import { foundEvent } from "../EventLifecycle.js"
import { EventRepo } from "../EventRepo.js"
import { type EventRow, seriesRootOf } from "../EventRow.js"
import { OccurrenceRepo } from "../recurrence/OccurrenceRepo.js"
import { RecurrenceRepo } from "../recurrence/RecurrenceRepo.js"
import { type CalendarEntry, renderCalendar } from "./EventCalendar.js"

/**
 * ICS export of events (decisions D8): one event or the public list as an RFC 5545 calendar. A recurring series —
 * asked for by its template or any of its occurrences — is exported once, as its template with the stored RRULE.
 */
export class CalendarService extends Effect.Service<CalendarService>()("CalendarService", {
  dependencies: [EventRepo.Default, OccurrenceRepo.Default, RecurrenceRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const events = yield* EventRepo
    const occurrenceRows = yield* OccurrenceRepo
    const recurrences = yield* RecurrenceRepo
    const users = yield* UserSummaries

    /** Calendar entries for these rows (templates, stand-alone events): one query per relation for all of them. */
    const entriesOf = (rows: ReadonlyArray<EventRow>) =>
      Effect.gen(function*() {
        const templateIds = rows.filter((r) => r.is_recurring_template).map((r) => r.id)
        const { occurrences, organisers, rules } = yield* Effect.all({
          rules: recurrences.byTemplates(templateIds),
          occurrences: occurrenceRows.states(templateIds),
          organisers: users.byIds(rows.map((r) => r.user_id))
        }, { concurrency: "unbounded" })
        return rows.map((row): CalendarEntry => {
          const id = row.id
          const rule = rules.get(id)
          const linked = occurrences.get(id) ?? []
          const organiser = organisers.get(row.user_id)
          const cancelled = row.status === "cancelled"
          // A changed or cancelled occurrence changes the series' VEVENT too (its EXDATEs).
          const updatedAt = new Date(Math.max(row.updated_at.getTime(), ...linked.map((o) => o.updated_at.getTime())))
          return {
            event: {
              id,
              title: row.title,
              description: row.description,
              start: row.start_time,
              end: row.end_time,
              location: row.location,
              onlineLink: row.online_link,
              cancelled,
              organiserName: organiser === undefined
                ? "Deleted User"
                : `${organiser.first_name} ${organiser.last_name}`.trim(),
              createdAt: row.created_at,
              updatedAt
            },
            series: rule === undefined || rule.rrule === null
              ? undefined
              : {
                rrule: rule.rrule,
                timezone: rule.timezone,
                // A cancelled series shows every date as cancelled rather than none at all.
                occurrences: linked.map((o) => ({ start: o.start_time, active: cancelled || o.status === "active" }))
              }
          }
        })
      })

    const render = (rows: ReadonlyArray<EventRow>) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const entries = yield* entriesOf(rows)
        const now = new Date(yield* Clock.currentTimeMillis)
        return renderCalendar({ tenantSlug: tenant.slug, calendarName: tenant.name, now }, entries)
      })

    const event = Effect.fn("Calendar.event")(function*(id: EventId) {
      const row = yield* foundEvent(events.findById(id))
      const key = seriesRootOf(row)
      const target = key === row.id ? row : (yield* events.byIds([key]))[0] ?? row
      return yield* render([target])
    })

    const list = Effect.fn("Calendar.list")(function*(params: CalendarListParams) {
      const rows = yield* events.listPublic({
        when: params.when ?? "upcoming",
        now: new Date(yield* Clock.currentTimeMillis),
        limit: CALENDAR_LIST_CAP
      })
      // A series appears once, where its first listed occurrence is, as its template.
      const keys = [...new Set(rows.map(seriesRootOf))]
      const listed = new Map<number, EventRow>(rows.map((r) => [r.id, r]))
      const templates = yield* events.byIds(keys.filter((key) => !listed.has(key)))
      for (const template of templates) listed.set(template.id, template)
      return yield* render(keys.flatMap((key) => {
        const row = listed.get(key)
        return row === undefined ? [] : [row]
      }))
    })

    return { event, list } as const
  })
}) {}
