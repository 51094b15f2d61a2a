import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"
import { EventId, RsvpChoice, RsvpCounts, RsvpStatus } from "./Event.js"

export const RsvpRequest = Schema.Struct({ status: RsvpChoice })
export type RsvpRequest = typeof RsvpRequest.Type

/**
 * The answer to an RSVP (decisions D8): `status` is the caller's RSVP afterwards, or `waitlisted` when the event was
 * full; `waitlist_position` is present while the caller waits.
 */
export const RsvpResult = Schema.Struct({
  status: Schema.Union(RsvpStatus, Schema.Literal("waitlisted")),
  waitlist_position: Schema.optional(Schema.Int),
  counts: RsvpCounts
})
export type RsvpResult = typeof RsvpResult.Type

export const RsvpRemoved = Schema.Struct({ removed: Schema.Boolean, counts: RsvpCounts })
export type RsvpRemoved = typeof RsvpRemoved.Type

export const WaitlistEntry = Schema.Struct({
  user: UserSummary,
  position: Schema.Int,
  joined_at: Schema.DateTimeUtc
})
export type WaitlistEntry = typeof WaitlistEntry.Type

/**
 * `GET /events/{id}/waitlist`: the organiser (and community admins) see every entry; others see only their own
 * position (`entries` empty).
 */
export const WaitlistView = Schema.Struct({
  entries: Schema.Array(WaitlistEntry),
  my_position: Schema.NullOr(Schema.Int),
  total: Schema.Int
})
export type WaitlistView = typeof WaitlistView.Type

export const WaitlistJoined = Schema.Struct({ waitlist_position: Schema.Int, counts: RsvpCounts })
export type WaitlistJoined = typeof WaitlistJoined.Type

export const WaitlistLeft = Schema.Struct({ left: Schema.Literal(true), counts: RsvpCounts })
export type WaitlistLeft = typeof WaitlistLeft.Type

export const Attendee = Schema.Struct({
  user: UserSummary,
  status: RsvpStatus,
  checked_in_at: Schema.NullOr(Schema.DateTimeUtc),
  responded_at: Schema.DateTimeUtc
})
export type Attendee = typeof Attendee.Type

/** The result of a check-in (decisions D8); a repeated check-in says `already_checked_in` and pays nothing more. */
export const CheckInResult = Schema.Struct({
  event_id: EventId,
  attendee_id: UserId,
  status: Schema.Literal("attended"),
  credited_hours: Schema.Number,
  transaction_id: Schema.NullOr(RecordId),
  already_checked_in: Schema.Boolean
})
export type CheckInResult = typeof CheckInResult.Type
