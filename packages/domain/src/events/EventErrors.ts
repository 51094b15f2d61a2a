import { ApiError } from "../http/ApiError.js"

/** RSVP to a cancelled event (spec "Errors"). */
export class EventCancelled extends ApiError<EventCancelled>()("EventCancelled", "EVENT_CANCELLED", 409) {}

/** Cancelling an event that is already cancelled (decisions D8). */
export class EventAlreadyCancelled
  extends ApiError<EventAlreadyCancelled>()("EventAlreadyCancelled", "EVENT_ALREADY_CANCELLED", 409)
{}

/** RSVP `going`/`interested` to an event that has ended (decisions D8). */
export class EventEnded extends ApiError<EventEnded>()("EventEnded", "EVENT_ENDED", 422) {}

/** A members-only community-care meeting refuses members who are not approved (spec "Errors"). */
export class MembersOnly extends ApiError<MembersOnly>()("MembersOnly", "KISS_TREFFEN_MEMBERS_ONLY", 403) {}

/** Check-in outside the window: 30 minutes before start to 24 hours after end (decisions D8). */
export class CheckinWindowClosed
  extends ApiError<CheckinWindowClosed>()("CheckinWindowClosed", "CHECKIN_WINDOW_CLOSED", 422)
{}

/** Check-in of a member without an RSVP (decisions D8). */
export class NotAttending extends ApiError<NotAttending>()("NotAttending", "NOT_ATTENDING", 422) {}

/** The event is full and the community has switched its waitlist off. */
export class EventFull extends ApiError<EventFull>()("EventFull", "EVENT_FULL", 409) {}

/** Joining the waitlist of an event with free places, or while already going. */
export class WaitlistNotNeeded extends ApiError<WaitlistNotNeeded>()("WaitlistNotNeeded", "WAITLIST_NOT_NEEDED", 409) {}

/** An attendee who was checked in keeps `attended`: their RSVP no longer changes. */
export class AlreadyAttended extends ApiError<AlreadyAttended>()("AlreadyAttended", "ALREADY_ATTENDED", 409) {}
