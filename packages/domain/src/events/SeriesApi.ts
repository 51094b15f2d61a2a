import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Event, EventIdPath } from "./Event.js"
import { EventCancelled } from "./EventErrors.js"
import { CreateEventSeries, EventSeries, LinkEventSeries } from "./Series.js"

const EVENTS = "/api/v2/events"

/**
 * Standalone series: a name that groups events without a recurrence rule (spec "Events"). Their events stay separate
 * cards in the lists. Every route answers 403 `FEATURE_DISABLED` when `events` is off.
 */
export class EventSeriesApi extends HttpApiGroup.make("eventSeries")
  .annotate(OpenApi.Title, "Events: series")
  .annotate(OpenApi.Description, "Standalone series: a name that groups events without a recurrence rule")
  .add(
    HttpApiEndpoint.post("create", `${EVENTS}/series`)
      .annotate(OpenApi.Summary, "Create an event series")
      .setPayload(CreateEventSeries)
      .addSuccess(DataEnvelope(EventSeries), { status: 201 })
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "A member of this community names a series; they own it")
  )
  .add(
    HttpApiEndpoint.post("link", `${EVENTS}/:id/series`)
      .annotate(OpenApi.Summary, "Link an event to a series")
      .setPath(EventIdPath)
      .setPayload(LinkEventSeries)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventCancelled))
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin links the event to a series (`null` unlinks). The series must be " +
          "one of this community (else 422 on `series_id`) that the caller created, unless they are an admin " +
          "(else 403). A cancelled event is no longer edited (409 EVENT_CANCELLED)"
      )
  )
  .middleware(EventsFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
