import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound, RateLimited } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Event, EventIdPath } from "./Event.js"
import { EventCancelled } from "./EventErrors.js"
import { EventCreateRateLimit } from "./EventsApi.js"
import { CreateRecurringEvent, RecurringEventCreated, UpdateRecurringEvent } from "./Recurring.js"

const EVENTS = "/api/v2/events"

/** Recurring series (spec "Events"): create a template with its occurrences, and scoped edits. */
export class RecurringEventsApi extends HttpApiGroup.make("recurringEvents")
  .annotate(OpenApi.Title, "Events: recurring")
  .annotate(OpenApi.Description, "Recurring series: a template with its occurrences, and edits of one or all of them")
  .add(
    HttpApiEndpoint.post("create", `${EVENTS}/recurring`)
      .annotate(OpenApi.Summary, "Create a recurring event")
      .setPayload(CreateRecurringEvent)
      .addSuccess(DataEnvelope(RecurringEventCreated), { status: 201 })
      .addError(httpError(Forbidden))
      .addError(httpError(RateLimited))
      .middleware(EventCreateRateLimit)
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "A member creates a recurring series in one step: the template (`is_recurring_template`, its start is the " +
          "first occurrence's), its rule, and one event per occurrence (`parent_event_id`, `occurrence_date`). " +
          "Times are wall-clock times in the community's time zone; at most 52 occurrences, none later than one " +
          "year from now. The answer is the template with `series_occurrences`: every occurrence made, in the item " +
          "shape of the event detail's `series_occurrences`"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${EVENTS}/:id/recurring`)
      .annotate(OpenApi.Summary, "Update a recurring event")
      .setPath(EventIdPath)
      .setPayload(UpdateRecurringEvent)
      .addSuccess(DataEnvelope(Event))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventCancelled))
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin. `single` (an occurrence): detaches it from its series and changes " +
          "only it. `all` (the template or an occurrence): changes the template and every future, not cancelled " +
          "occurrence; it never moves times, so `start_time`/`end_time` are refused (422)"
      )
  )
  .middleware(EventsFeature)
  .middlewareEndpoints(TenantMiddleware)
{}
