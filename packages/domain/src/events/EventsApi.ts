import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound, RateLimited } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { RateLimit } from "../http/RateLimit.js"
import { Authentication, OptionalAuthentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  CancelEventPayload,
  CreateEvent,
  Event,
  EventDeleted,
  EventIdPath,
  ListEventsParams,
  UpdateEvent
} from "./Event.js"
import { EventAlreadyCancelled, EventCancelled } from "./EventErrors.js"

/** Spec "Limits": event create, 10 per 60 seconds (per IP, decisions D10). */
export class EventCreateRateLimit extends RateLimit<EventCreateRateLimit>()("EventCreateRateLimit", {
  limit: 10,
  window: "1 minute",
  scope: "ip"
}) {}

/** Spec "Limits": event delete, 10 per 60 seconds (per IP, decisions D10). */
export class EventDeleteRateLimit extends RateLimit<EventDeleteRateLimit>()("EventDeleteRateLimit", {
  limit: 10,
  window: "1 minute",
  scope: "ip"
}) {}

const EVENTS = "/api/v2/events"

/**
 * Community events: the public lists and detail, and what organisers do with their events (spec "Events"). Every
 * route answers 403 `FEATURE_DISABLED` when `events` is off.
 */
export class EventsApi extends HttpApiGroup.make("events")
  .annotate(OpenApi.Title, "Events")
  .annotate(
    OpenApi.Description,
    "Community events: the public list and detail, and what organisers do with their events; every route " +
      "answers 403 `FEATURE_DISABLED` when `events` is off"
  )
  .add(
    HttpApiEndpoint.get("list", EVENTS)
      .annotate(OpenApi.Summary, "List events")
      .setUrlParams(ListEventsParams)
      .addSuccess(CursorPage(Event))
      .middleware(OptionalAuthentication)
      .annotate(
        OpenApi.Description,
        "Events of this community that are not cancelled: `upcoming` (not yet ended, soonest first) or `past` " +
          "(ended, most recent first). A recurring series is one card: its soonest upcoming (or most recent past) " +
          "occurrence, with `is_series`, `series_count` and `recurrence_frequency`; templates are not listed. No " +
          "token needed; with one, each event carries the caller's `my_rsvp` and `my_waitlist_position`"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${EVENTS}/:id`)
      .annotate(OpenApi.Summary, "Get an event")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .middleware(OptionalAuthentication)
      .annotate(
        OpenApi.Description,
        "An event, cancelled ones included; with a token also the caller's RSVP. A recurring template or " +
          "occurrence adds `series_occurrences` (up to 50 upcoming dates)"
      )
  )
  .add(
    HttpApiEndpoint.post("create", EVENTS)
      .annotate(OpenApi.Summary, "Create an event")
      .setPayload(CreateEvent)
      .addSuccess(DataEnvelope(Event), { status: 201 })
      .addError(httpError(Forbidden))
      .addError(httpError(RateLimited))
      // Endpoint middleware runs last-added first: tenant, then the caller, then the rate limit.
      .middleware(EventCreateRateLimit)
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "A member of this community organises an event; `poll_ids` must all be the caller's polls (else 403)"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${EVENTS}/:id`)
      .annotate(OpenApi.Summary, "Update an event")
      .setPath(EventIdPath)
      .setPayload(UpdateEvent)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventCancelled))
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin; only the fields sent change (`null` clears an optional one), " +
          "`poll_ids` replaces the event's polls. A cancelled event is no longer edited (409 EVENT_CANCELLED)"
      )
  )
  .add(
    HttpApiEndpoint.post("cancel", `${EVENTS}/:id/cancel`)
      .annotate(OpenApi.Summary, "Cancel an event")
      .setPath(EventIdPath)
      .setPayload(CancelEventPayload)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventAlreadyCancelled))
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin; a recurring template also cancels its future occurrences. " +
          "Attendees and waitlisted members are notified"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${EVENTS}/:id`)
      .annotate(OpenApi.Summary, "Delete an event")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(EventDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(RateLimited))
      .middleware(EventDeleteRateLimit)
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin removes the event with its RSVPs, waitlist and reminders; a " +
          "recurring template also deletes its future occurrences and detaches the past ones"
      )
  )
  .middleware(EventsFeature)
  // Per endpoint and last, so that it wraps each endpoint's own middleware: the tenant is always resolved first.
  .middlewareEndpoints(TenantMiddleware)
{}
