import { CALENDAR_LIST_CAP, type CalendarListParams, CurrentTenant, type EventId } from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { CalendarRepo, type CalendarSource } from "./CalendarRepo.js"
import { type CalendarEntry, renderCalendar } from "./EventCalendar.js"
import { eventNotFound } from "./EventLifecycle.js"
import { EventRepo } from "./EventRepo.js"
import { gateEvents } from "./EventsService.js"

/** The series an event belongs to: its template's id, or its own id when it stands alone or is the template. */
const seriesKey = (row: CalendarSource) =>
  row.is_recurring_template || row.parent_event_id === null ? Number(row.id) : Number(row.parent_event_id)

/**
 * ICS export of events (decisions D8): one event or the public list as an RFC 5545 calendar. A recurring series —
 * asked for by its template or any of its occurrences — is exported once, as its template with the stored RRULE.
 */
export class CalendarService extends Effect.Service<CalendarService>()("CalendarService", {
  dependencies: [EventRepo.Default, CalendarRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const events = yield* EventRepo
    const repo = yield* CalendarRepo
    const users = yield* UserSummaries

    /** Calendar entries for these rows (templates, stand-alone events): one query per relation for all of them. */
    const entriesOf = (rows: ReadonlyArray<CalendarSource>) =>
      Effect.gen(function*() {
        const templateIds = rows.filter((r) => r.is_recurring_template).map((r) => Number(r.id))
        const { occurrences, organisers, rules } = yield* Effect.all({
          rules: repo.rules(templateIds),
          occurrences: repo.occurrences(templateIds),
          organisers: users.byIds(rows.map((r) => Number(r.user_id)))
        }, { concurrency: "unbounded" })
        return rows.map((row): CalendarEntry => {
          const id = Number(row.id)
          const rule = rules.get(id)
          const linked = occurrences.get(id) ?? []
          const organiser = organisers.get(Number(row.user_id))
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

    const render = (rows: ReadonlyArray<CalendarSource>) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const entries = yield* entriesOf(rows)
        const now = new Date(yield* Clock.currentTimeMillis)
        return renderCalendar({ tenantSlug: tenant.slug, calendarName: tenant.name, now }, entries)
      })

    const event = Effect.fn("Calendar.event")(function*(id: EventId) {
      const row = yield* Effect.flatMap(
        events.findById(id),
        Option.match({ onNone: () => Effect.fail(eventNotFound()), onSome: Effect.succeed })
      )
      const key = seriesKey(row)
      const target = key === Number(row.id) ? row : (yield* repo.eventsByIds([key]))[0] ?? row
      return yield* render([target])
    }, gateEvents)

    const list = Effect.fn("Calendar.list")(function*(params: CalendarListParams) {
      const rows = yield* events.listPublic({
        when: params.when ?? "upcoming",
        now: new Date(yield* Clock.currentTimeMillis),
        limit: CALENDAR_LIST_CAP
      })
      // A series appears once, where its first listed occurrence is, as its template.
      const keys = [...new Set(rows.map(seriesKey))]
      const listed = new Map(rows.map((r) => [Number(r.id), r as CalendarSource]))
      const templates = yield* repo.eventsByIds(keys.filter((key) => !listed.has(key)))
      for (const template of templates) listed.set(Number(template.id), template)
      return yield* render(keys.flatMap((key) => {
        const row = listed.get(key)
        return row === undefined ? [] : [row]
      }))
    }, gateEvents)

    return { event, list } as const
  })
}) {}
