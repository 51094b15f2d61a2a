import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError, NotFound } from "../http/ApiError.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { EventIdPath, EventWhen } from "./Event.js"

/** An RFC 5545 iCalendar document. */
export const ICalendar = HttpApiSchema.Text({ contentType: "text/calendar; charset=utf-8" }).annotations({
  description: "An RFC 5545 iCalendar document (VCALENDAR)"
})

/** Most events one `events.ics` export holds. */
export const CALENDAR_LIST_CAP = 500

export const CalendarListParams = Schema.Struct({
  when: Schema.optional(EventWhen).annotations({ description: "Default `upcoming`" })
})
export type CalendarListParams = typeof CalendarListParams.Type

/**
 * ICS export of events (decisions D8), public like the event list and detail. A recurring series is one VEVENT
 * with RRULE, its DTSTART in the series' time zone (TZID, with a VTIMEZONE) and EXDATE for occurrences that no
 * longer take place. `/events/{id}.ics` is matched before `/events/{id}`: the router prefers a parameter with a
 * static suffix.
 */
export class CalendarApi extends HttpApiGroup.make("eventCalendar")
  .annotate(OpenApi.Title, "Events: calendar export")
  .annotate(OpenApi.Description, "ICS (RFC 5545) export of the public events, for calendar applications")
  .add(
    HttpApiEndpoint.get("event", "/api/v2/events/:id.ics")
      .annotate(OpenApi.Summary, "Export an event as iCalendar")
      .setPath(EventIdPath)
      .addSuccess(ICalendar)
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "One event as an iCalendar file; for a recurring template or one of its occurrences, the whole series as one " +
          "VEVENT with RRULE. Cancelled events carry STATUS:CANCELLED. The organiser is named, never addressed"
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/events.ics")
      .annotate(OpenApi.Summary, "Export events as iCalendar")
      .setUrlParams(CalendarListParams)
      .addSuccess(ICalendar)
      .annotate(
        OpenApi.Description,
        `The events of the public list (\`upcoming\` or \`past\`) as one iCalendar file, at most ${CALENDAR_LIST_CAP} ` +
          "events; a series appears once, with its RRULE"
      )
  )
  .middleware(EventsFeature)
  .middlewareEndpoints(TenantMiddleware)
{}
