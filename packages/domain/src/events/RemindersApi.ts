import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { EventIdPath } from "./Event.js"
import { EventCancelled, EventEnded } from "./EventErrors.js"
import { EventReminder, SetReminders } from "./Reminders.js"

const REMINDERS = "/api/v2/events/:id/reminders"

/**
 * A member's own reminders of one event (decisions D8). Delivery runs on the cluster: due reminders and the automatic
 * 24 h / 1 h reminders of `going` and `interested` attendees are written to the outbox once each.
 */
export class EventRemindersApi extends HttpApiGroup.make("eventReminders")
  .annotate(OpenApi.Title, "Events: reminders")
  .annotate(
    OpenApi.Description,
    "A member's own reminders of an event, besides the automatic 24 h and 1 h reminders of attendees"
  )
  .add(
    HttpApiEndpoint.put("set", REMINDERS)
      .annotate(OpenApi.Summary, "Set my reminders for an event")
      .setPath(EventIdPath)
      .setPayload(SetReminders)
      .addSuccess(DataEnvelope(Schema.Array(EventReminder)))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventCancelled))
      .addError(httpError(EventEnded))
      .annotate(
        OpenApi.Description,
        "Replaces the caller's reminders of the event (an empty list clears them) and returns the set. Only members " +
          "with an RSVP `going` or `interested` may set them (else 403). Offsets already delivered stay `sent`; any " +
          "other offset whose time has passed is refused (422 on `reminders.N.offset_minutes`), as is an offset " +
          "given twice. 409 `EVENT_CANCELLED` for a cancelled event, 422 `EVENT_ENDED` once it has started."
      )
  )
  .add(
    HttpApiEndpoint.get("list", REMINDERS)
      .annotate(OpenApi.Summary, "List my reminders for an event")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(Schema.Array(EventReminder)))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "The caller's reminders of the event, soonest first, whatever their status")
  )
  // The middleware added last runs first: the tenant, then the caller, then the feature switch.
  .middleware(EventsFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
