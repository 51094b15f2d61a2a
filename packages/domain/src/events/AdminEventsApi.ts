import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { AdminListEventsParams, CancelEventPayload, Event, EventDeleted, EventIdPath } from "./Event.js"
import { EventAlreadyCancelled } from "./EventErrors.js"

const EVENTS = "/api/v2/admin/events"

/**
 * Events of the community for its admins (tenant admins and platform super-admins): every status, occurrences
 * included. Answers 403 `FEATURE_DISABLED` when `events` is off.
 */
export class AdminEventsApi extends HttpApiGroup.make("adminEvents")
  .annotate(OpenApi.Title, "Admin: events")
  .annotate(
    OpenApi.Description,
    "Every event of the community, for tenant admins and platform super-admins; answers 403 " +
      "`FEATURE_DISABLED` when `events` is off"
  )
  .add(
    HttpApiEndpoint.get("list", EVENTS)
      .annotate(OpenApi.Summary, "List all events")
      .setUrlParams(AdminListEventsParams)
      .addSuccess(OffsetPage(Event))
      .annotate(
        OpenApi.Description,
        "Every event, by start time (soonest first with `when=upcoming`, else most recent first); filters " +
          "status, when, organiser (`user_id`) and search in title or description"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${EVENTS}/:id`)
      .annotate(OpenApi.Summary, "Get any event")
      .annotate(OpenApi.Description, "An event of any status, occurrences and templates included")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.del("delete", `${EVENTS}/:id`)
      .annotate(OpenApi.Summary, "Delete an event (admin)")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(EventDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Hard delete with the same cascade as the organiser's delete")
  )
  .add(
    HttpApiEndpoint.post("cancel", `${EVENTS}/:id/cancel`)
      .annotate(OpenApi.Summary, "Cancel an event (admin)")
      .setPath(EventIdPath)
      .setPayload(CancelEventPayload)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .addError(httpError(EventAlreadyCancelled))
      .annotate(OpenApi.Description, "The same cancel as the organiser's, with its cascade and notifications")
  )
  .addError(httpError(Forbidden))
  .middleware(EventsFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
