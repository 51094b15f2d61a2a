import {
  AlreadyAttended,
  EventCancelled,
  EventEnded,
  EventFull,
  MembersOnly,
  NotFound,
  type RsvpChoice,
  type RsvpRemoved,
  type RsvpResult,
  type Tenant,
  type WaitlistJoined,
  type WaitlistLeft,
  WaitlistNotNeeded
} from "@timebank/domain"
import {
  type Change,
  countsOf,
  decideRemoval,
  decideRsvp,
  type EventFacts,
  hasEnded,
  noChange,
  type Places,
  positionOf,
  promotions,
  type RsvpRefusal,
  type Settings,
  statusOf
} from "./EventPlaces.js"

/** The errors a refused message answers with. */
export const refuse = {
  cancelled: () => new EventCancelled({ message: "This event is cancelled" }),
  ended: () => new EventEnded({ message: "This event has ended" }),
  members_only: () => new MembersOnly({ message: "This meeting is for approved members only" }),
  full: () => new EventFull({ message: "This event is full and this community keeps no waitlist" }),
  attended: () => new AlreadyAttended({ message: "You were checked in to this event; your RSVP no longer changes" })
} satisfies Record<RsvpRefusal, () => unknown>

export const settingsOf = (tenant: Tenant): Settings => ({
  waitlistEnabled: tenant.settings.waitlist_enabled,
  autoPromote: tenant.settings.waitlist_auto_promote
})

/** What a message is decided on: the event row, its places as committed so far in the batch, the community. */
export interface DecisionContext {
  readonly event: EventFacts
  readonly places: Places
  readonly settings: Settings
  readonly now: Date
}

/** A decision made in memory: a refusal, or a change with the answer to give once it is written. */
export type Decision<A, E> =
  | { readonly _tag: "Refused"; readonly error: E }
  | { readonly _tag: "Accepted"; readonly change: Change; readonly answer: (after: Places) => A }

export const refused = <E>(error: E): Decision<never, E> => ({ _tag: "Refused", error })
export const accepted = <A>(change: Change, answer: (after: Places) => A): Decision<A, never> => ({
  _tag: "Accepted",
  change,
  answer
})

/** `Rsvp`: a member's answer, which may take a place, join the waitlist or give a place up. */
export const rsvpDecision =
  (payload: { readonly userId: number; readonly isApproved: boolean; readonly status: RsvpChoice }) =>
  ({ event, now, places, settings }: DecisionContext) => {
    const input = { userId: payload.userId, choice: payload.status, isApproved: payload.isApproved }
    const decision = decideRsvp(event, places, input, settings, now)
    if (decision._tag === "Refused") return refused(refuse[decision.reason]())
    return accepted(decision.change, (after): RsvpResult => {
      const position = positionOf(after, payload.userId)
      return decision.waitlisted && position !== null
        ? { status: "waitlisted", waitlist_position: position, counts: countsOf(after) }
        : { status: statusOf(after, payload.userId) ?? payload.status, counts: countsOf(after) }
    })
  }

/** `RemoveRsvp`: the member withdraws their answer (and any waitlist entry); a checked-in attendee cannot. */
export const removalDecision =
  (payload: { readonly userId: number }) => ({ event, now, places, settings }: DecisionContext) => {
    if (statusOf(places, payload.userId) === "attended") return refused(refuse.attended())
    const change = decideRemoval(event, places, payload.userId, settings, now)
    const removed = change.rsvps.length > 0 || change.leaveWaitlist.length > 0
    return accepted(removed ? change : noChange, (after): RsvpRemoved => ({ removed, counts: countsOf(after) }))
  }

/** `JoinWaitlist`: only when the event is full, open, and the community keeps a waitlist. */
export const joinDecision = (payload: { readonly userId: number; readonly isApproved: boolean }) =>
(
  { event, now, places, settings }: DecisionContext
): Decision<WaitlistJoined, EventCancelled | EventEnded | MembersOnly | WaitlistNotNeeded | EventFull> => {
  if (event.status === "cancelled") return refused(refuse.cancelled())
  if (hasEnded(event, now)) return refused(refuse.ended())
  if (event.membersOnly && !payload.isApproved) return refused(refuse.members_only())
  const current = statusOf(places, payload.userId)
  if (current === "going" || current === "attended") {
    return refused(new WaitlistNotNeeded({ message: "You already have a place at this event" }))
  }
  const joined = (after: Places): WaitlistJoined => ({
    waitlist_position: positionOf(after, payload.userId)!,
    counts: countsOf(after)
  })
  if (positionOf(places, payload.userId) !== null) return accepted(noChange, joined)
  if (places.going < (event.maxAttendees ?? Number.POSITIVE_INFINITY)) {
    return refused(new WaitlistNotNeeded({ message: "This event has free places: RSVP `going` instead" }))
  }
  if (!settings.waitlistEnabled) return refused(refuse.full())
  return accepted({ ...noChange, joinWaitlist: [payload.userId] }, joined)
}

/** `LeaveWaitlist`: 404 when the member is not waiting. */
export const leaveDecision = (payload: { readonly userId: number }) => ({ places }: DecisionContext) =>
  positionOf(places, payload.userId) === null
    ? refused(NotFound.of("Waitlist entry"))
    : accepted(
      { ...noChange, leaveWaitlist: [payload.userId] },
      (after): WaitlistLeft => ({ left: true, counts: countsOf(after) })
    )

/** `Refresh`: the event changed outside the entity; free places go to the waitlist. */
export const refreshDecision = ({ event, now, places, settings }: DecisionContext) => {
  const change = promotions(event, places, settings, now)
  return accepted(change, () => ({ promoted: change.promoted }))
}
