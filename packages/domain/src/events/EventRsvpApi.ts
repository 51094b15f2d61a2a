import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { PathId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { UserId } from "../identity/User.js"
import { InsufficientBalance } from "../ledger/LedgerErrors.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { EventId, EventIdPath } from "./Event.js"
import {
  AlreadyAttended,
  CheckinWindowClosed,
  EventCancelled,
  EventEnded,
  EventFull,
  MembersOnly,
  NotAttending,
  WaitlistNotNeeded
} from "./EventErrors.js"
import {
  Attendee,
  CheckInResult,
  RsvpRemoved,
  RsvpRequest,
  RsvpResult,
  WaitlistJoined,
  WaitlistLeft,
  WaitlistView
} from "./Rsvp.js"

const EVENT = "/api/v2/events/:id"

/** `attendeeId` is the attendee's user id (decisions D8). */
export const CheckInPath = Schema.Struct({ id: PathId(EventId), attendeeId: PathId(UserId) })

/**
 * RSVPs, the waitlist, the attendee roster and check-in of one event. Every capacity-affecting call goes through the
 * event's cluster entity, so a full event is never overbooked and the waitlist order is exact. All routes need a
 * token and answer 403 `FEATURE_DISABLED` when `events` is off.
 */
export class EventRsvpApi extends HttpApiGroup.make("eventRsvp")
  .annotate(OpenApi.Title, "Events: RSVPs and check-in")
  .annotate(
    OpenApi.Description,
    "RSVPs, the waitlist, the attendee roster and check-in of one event; all routes need a token"
  )
  .add(
    HttpApiEndpoint.post("rsvp", `${EVENT}/rsvp`)
      .annotate(OpenApi.Summary, "RSVP to an event")
      .setPath(EventIdPath)
      .setPayload(RsvpRequest)
      .addSuccess(DataEnvelope(RsvpResult))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(MembersOnly))
      .addError(httpError(EventCancelled))
      .addError(httpError(EventFull))
      .addError(httpError(AlreadyAttended))
      .addError(httpError(EventEnded))
      .annotate(
        OpenApi.Description,
        "Answer `going`, `interested`, `not_going` or `declined`. `going` to a full event joins the waitlist: 200 " +
          "with `status: \"waitlisted\"` and `waitlist_position` (409 `EVENT_FULL` when the community keeps no " +
          "waitlist). A place given up promotes the first waiter when the community auto-promotes."
      )
  )
  .add(
    HttpApiEndpoint.del("removeRsvp", `${EVENT}/rsvp`)
      .annotate(OpenApi.Summary, "Withdraw my RSVP")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(RsvpRemoved))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(AlreadyAttended))
      .annotate(
        OpenApi.Description,
        "Removes the caller's RSVP and waitlist entry (`removed: false` when there was none); cancels their " +
          "pending reminders"
      )
  )
  .add(
    HttpApiEndpoint.get("waitlist", `${EVENT}/waitlist`)
      .annotate(OpenApi.Summary, "Get an event's waitlist")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(WaitlistView))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "The organiser and community admins see every entry in order; other members see only `my_position`"
      )
  )
  .add(
    HttpApiEndpoint.post("joinWaitlist", `${EVENT}/waitlist`)
      .annotate(OpenApi.Summary, "Join an event's waitlist")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(WaitlistJoined))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(MembersOnly))
      .addError(httpError(EventCancelled))
      .addError(httpError(EventFull))
      .addError(httpError(WaitlistNotNeeded))
      .addError(httpError(EventEnded))
      .annotate(
        OpenApi.Description,
        "Joins the waitlist of a full event (already waiting: the same position); 409 `WAITLIST_NOT_NEEDED` " +
          "while places are free or the caller is going"
      )
  )
  .add(
    HttpApiEndpoint.del("leaveWaitlist", `${EVENT}/waitlist`)
      .annotate(OpenApi.Summary, "Leave an event's waitlist")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(WaitlistLeft))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Leaves the waitlist; 404 when the caller is not waiting")
  )
  .add(
    HttpApiEndpoint.get("attendees", `${EVENT}/attendees`)
      .annotate(OpenApi.Summary, "List an event's attendees")
      .setPath(EventIdPath)
      .addSuccess(DataEnvelope(Schema.Array(Attendee)))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "RSVPs `going`, `interested`, `invited` and `attended`, in the order they were given. Shown to the " +
          "organiser, community admins and members on the roster; anyone else gets an empty roster"
      )
  )
  .add(
    HttpApiEndpoint.post("checkIn", `${EVENT}/attendees/:attendeeId/check-in`)
      .annotate(OpenApi.Summary, "Check an attendee in")
      .setPath(CheckInPath)
      .addSuccess(DataEnvelope(CheckInResult))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(EventCancelled))
      .addError(httpError(CheckinWindowClosed))
      .addError(httpError(NotAttending))
      .addError(httpError(InsufficientBalance))
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin checks an attendee in (30 minutes before the start to 24 hours " +
          "after the end): the RSVP becomes `attended` and the organiser pays the event's duration, clamped to " +
          "[0.5, 24] hours, to the attendee. Repeating it answers `already_checked_in: true` and pays nothing more"
      )
  )
  // The middleware added last runs first: the tenant, then the caller, then the feature switch.
  .middleware(EventsFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
