import type { DomainEvents, RsvpChoice, RsvpCounts, RsvpStatus } from "@timebank/domain"
import { HashMap, Option } from "effect"
import * as Waitlist from "./Waitlist.js"

/** What the Event entity needs of its event row to decide. */
export interface EventFacts {
  readonly id: number
  readonly organiserId: number
  readonly title: string
  readonly startTime: Date
  readonly endTime: Date | null
  readonly status: "active" | "cancelled"
  readonly maxAttendees: number | null
  readonly membersOnly: boolean
}

/**
 * Who holds a place, who is interested, who waits (in order). The entity's memory of one event: persistent (a change
 * makes new places sharing the rest) and counted as it changes, so deciding an RSVP costs the same for the
 * thousandth member as for the first.
 */
export interface Places {
  readonly rsvps: HashMap.HashMap<number, RsvpStatus>
  readonly waitlist: Waitlist.Waitlist
  /** RSVPs holding a place (`going`, `attended`). */
  readonly going: number
  readonly interested: number
}

export interface Settings {
  readonly waitlistEnabled: boolean
  readonly autoPromote: boolean
}

/** `attended` keeps the place it had as `going`. */
const holdsPlace = (status: RsvpStatus | undefined) => status === "going" || status === "attended"

const placeCount = (status: RsvpStatus | undefined) => (holdsPlace(status) ? 1 : 0)
const interestCount = (status: RsvpStatus | undefined) => (status === "interested" ? 1 : 0)

/** Places from an event's rows: its RSVPs and its waitlist in queue order. */
export const makePlaces = (
  rsvps: Iterable<readonly [userId: number, status: RsvpStatus]>,
  waitlist: Iterable<number>
): Places => {
  const map = HashMap.fromIterable(rsvps)
  let going = 0
  let interested = 0
  for (const status of HashMap.values(map)) {
    going += placeCount(status)
    interested += interestCount(status)
  }
  return { rsvps: map, waitlist: Waitlist.waitlistOf(waitlist), going, interested }
}

const statusIn = (rsvps: Places["rsvps"], userId: number): RsvpStatus | undefined =>
  Option.getOrUndefined(HashMap.get(rsvps, userId))

/** A member's RSVP status, if they answered. */
export const statusOf = (places: Places, userId: number): RsvpStatus | undefined => statusIn(places.rsvps, userId)

/** The waiters, first come first. */
export const waitersOf = (places: Places): Array<number> => Waitlist.waiters(places.waitlist)

export const countsOf = (places: Places): RsvpCounts => ({
  going: places.going,
  interested: places.interested,
  waitlist: Waitlist.size(places.waitlist)
})

export const freePlaces = (event: EventFacts, places: Places) =>
  event.maxAttendees === null ? Number.POSITIVE_INFINITY : Math.max(0, event.maxAttendees - places.going)

/** 1 + the number of members who joined the waitlist earlier (decisions D8); null when not waiting. */
export const positionOf = (places: Places, userId: number): number | null =>
  Waitlist.positionIn(places.waitlist, userId)

const isWaiting = (places: Places, userId: number) => Waitlist.isWaiting(places.waitlist, userId)

/** Spec "Errors" rule 1: past = after end_time, or after start_time when there is no end_time. */
export const hasEnded = (event: EventFacts, now: Date) => (event.endTime ?? event.startTime).getTime() < now.getTime()

/** A change the entity writes (in one transaction) and then applies to its memory. */
export interface Change {
  /** New RSVP statuses; null removes the RSVP. */
  readonly rsvps: ReadonlyArray<readonly [userId: number, status: RsvpStatus | null]>
  readonly joinWaitlist: ReadonlyArray<number>
  readonly leaveWaitlist: ReadonlyArray<number>
  /** Waiters moved into `going` (also listed in `rsvps`). */
  readonly promoted: ReadonlyArray<number>
}

export const noChange: Change = { rsvps: [], joinWaitlist: [], leaveWaitlist: [], promoted: [] }

export const isEmpty = (change: Change) =>
  change.rsvps.length === 0 && change.joinWaitlist.length === 0 && change.leaveWaitlist.length === 0 &&
  change.promoted.length === 0

export const applyChange = (places: Places, change: Change): Places => {
  let { going, interested, rsvps, waitlist } = places
  for (const [userId, status] of change.rsvps) {
    const was = statusIn(rsvps, userId)
    const now = status ?? undefined
    going += placeCount(now) - placeCount(was)
    interested += interestCount(now) - interestCount(was)
    rsvps = status === null ? HashMap.remove(rsvps, userId) : HashMap.set(rsvps, userId, status)
  }
  for (const userId of change.leaveWaitlist) waitlist = Waitlist.leave(waitlist, userId)
  for (const userId of change.promoted) waitlist = Waitlist.leave(waitlist, userId)
  for (const userId of change.joinWaitlist) waitlist = Waitlist.join(waitlist, userId)
  return { rsvps, waitlist, going, interested }
}

/**
 * Fills free places from the waitlist, first come first, when the community auto-promotes (decisions D8). Run on
 * the places a change leaves behind; its result is merged into that change.
 */
export const promotions = (event: EventFacts, places: Places, settings: Settings, now: Date): Change => {
  if (!settings.autoPromote || event.status === "cancelled" || hasEnded(event, now)) return noChange
  const free = freePlaces(event, places)
  const promoted = Waitlist.firstWaiters(places.waitlist, Number.isFinite(free) ? free : Waitlist.size(places.waitlist))
  return promoted.length === 0
    ? noChange
    : { rsvps: promoted.map((userId) => [userId, "going"] as const), joinWaitlist: [], leaveWaitlist: [], promoted }
}

export const mergeChanges = (a: Change, b: Change): Change => ({
  rsvps: [...a.rsvps, ...b.rsvps],
  joinWaitlist: [...a.joinWaitlist, ...b.joinWaitlist],
  leaveWaitlist: [...a.leaveWaitlist, ...b.leaveWaitlist],
  promoted: [...a.promoted, ...b.promoted]
})

export type RsvpRefusal = "cancelled" | "ended" | "members_only" | "full" | "attended"

export type RsvpDecision =
  | { readonly _tag: "Refused"; readonly reason: RsvpRefusal }
  | { readonly _tag: "Decided"; readonly change: Change; readonly waitlisted: boolean }

/**
 * An RSVP, decided on the entity's memory (spec "RSVP" transitions and decisions D8):
 * - cancelled events take no RSVP (409), ended events no `going`/`interested` (422);
 * - `going` takes a free place, or joins the waitlist when the event is full (200 `waitlisted`, not an error), or
 *   is refused when the community switched the waitlist off;
 * - any other answer leaves the waitlist and gives up a place, which promotes the first waiter;
 * - an attendee who was checked in stays `attended`.
 */
export const decideRsvp = (
  event: EventFacts,
  places: Places,
  input: { readonly userId: number; readonly choice: RsvpChoice; readonly isApproved: boolean },
  settings: Settings,
  now: Date
): RsvpDecision => {
  const current = statusOf(places, input.userId)
  if (event.status === "cancelled") return { _tag: "Refused", reason: "cancelled" }
  const attending = input.choice === "going" || input.choice === "interested"
  if (attending && hasEnded(event, now)) return { _tag: "Refused", reason: "ended" }
  if (attending && event.membersOnly && !input.isApproved) return { _tag: "Refused", reason: "members_only" }
  if (current === "attended") return { _tag: "Refused", reason: "attended" }

  if (input.choice === "going") {
    if (current === "going") return { _tag: "Decided", change: noChange, waitlisted: false }
    if (freePlaces(event, places) > 0) {
      const change: Change = {
        rsvps: [[input.userId, "going"]],
        joinWaitlist: [],
        leaveWaitlist: isWaiting(places, input.userId) ? [input.userId] : [],
        promoted: []
      }
      return { _tag: "Decided", change, waitlisted: false }
    }
    if (!settings.waitlistEnabled) return { _tag: "Refused", reason: "full" }
    const change: Change = { rsvps: [], joinWaitlist: [input.userId], leaveWaitlist: [], promoted: [] }
    return { _tag: "Decided", change, waitlisted: true }
  }

  const own: Change = {
    rsvps: current === input.choice ? [] : [[input.userId, input.choice]],
    joinWaitlist: [],
    leaveWaitlist: isWaiting(places, input.userId) ? [input.userId] : [],
    promoted: []
  }
  const after = applyChange(places, own)
  return { _tag: "Decided", change: mergeChanges(own, promotions(event, after, settings, now)), waitlisted: false }
}

/** Removing an RSVP (and any waitlist entry) gives up the place and promotes. */
export const decideRemoval = (
  event: EventFacts,
  places: Places,
  userId: number,
  settings: Settings,
  now: Date
): Change => {
  const own: Change = {
    rsvps: HashMap.has(places.rsvps, userId) ? [[userId, null]] : [],
    joinWaitlist: [],
    leaveWaitlist: isWaiting(places, userId) ? [userId] : [],
    promoted: []
  }
  return mergeChanges(own, promotions(event, applyChange(places, own), settings, now))
}

/** Check-in window (spec "Limits"): 30 minutes before start to 24 hours after end (or start). */
export const checkInWindowOpen = (event: EventFacts, now: Date) => {
  const opens = event.startTime.getTime() - 30 * 60_000
  const closes = (event.endTime ?? event.startTime).getTime() + 24 * 3_600_000
  return now.getTime() >= opens && now.getTime() <= closes
}

/** Check-in credit (decisions D8): duration in hours clamped to [0.5, 24], 0.5 without an end; whole cents. */
export const checkInCents = (event: Pick<EventFacts, "startTime" | "endTime">) => {
  if (event.endTime === null) return 50
  const hours = (event.endTime.getTime() - event.startTime.getTime()) / 3_600_000
  return Math.round(Math.min(24, Math.max(0.5, hours)) * 100)
}

/** Who may be checked in: anyone with an RSVP that is not a refusal. */
export const canCheckIn = (status: RsvpStatus | undefined) =>
  status === "going" || status === "interested" || status === "invited" || status === "attended"

/**
 * A domain event of a change of places, written in the transaction of the change that raised it (EventPlacesRepo
 * makes the domain event of it): its tag and its fields.
 */
export type PlacesEvent =
  | { readonly type: "RsvpChanged"; readonly payload: ConstructorParameters<typeof DomainEvents.RsvpChanged>[0] }
  | {
    readonly type: "WaitlistPromoted"
    readonly payload: ConstructorParameters<typeof DomainEvents.WaitlistPromoted>[0]
  }

/**
 * The domain events of one decided change, against the places it was decided on: `RsvpChanged` only for a real
 * change of status (spec "Event-related notifications"), `WaitlistPromoted` for each waiter moved into a place.
 */
export const eventsOf = (event: EventFacts, before: Places, change: Change): ReadonlyArray<PlacesEvent> => {
  const about = { event_id: event.id, event_title: event.title, organiser_id: event.organiserId }
  const changed: Array<PlacesEvent> = []
  for (const [userId, status] of change.rsvps) {
    const from = statusOf(before, userId) ?? null
    if (from !== status) changed.push({ type: "RsvpChanged", payload: { ...about, user_id: userId, from, to: status } })
  }
  for (const userId of change.promoted) {
    changed.push({ type: "WaitlistPromoted", payload: { ...about, user_id: userId } })
  }
  return changed
}

/** Statuses that give up attending: the member's pending reminders are cancelled (spec "Reminder"). */
export const dropsReminders = (status: RsvpStatus | null) =>
  status === null || status === "not_going" || status === "declined"

/** Rows to write so that the database holds `after` where it held `before`. */
export interface WritePlan {
  readonly upsert: ReadonlyArray<readonly [userId: number, status: RsvpStatus]>
  readonly remove: ReadonlyArray<number>
  /** Waitlist rows to delete; deleted before the inserts. */
  readonly unqueue: ReadonlyArray<number>
  /** Waitlist rows to insert, in queue order (the waitlist order is the id order). */
  readonly enqueue: ReadonlyArray<number>
  readonly cancelReminders: ReadonlyArray<number>
  readonly events: ReadonlyArray<PlacesEvent>
}

export const isEmptyPlan = (plan: WritePlan) =>
  plan.upsert.length === 0 && plan.remove.length === 0 && plan.unqueue.length === 0 && plan.enqueue.length === 0 &&
  plan.cancelReminders.length === 0 && plan.events.length === 0

/**
 * Several changes decided one after the other, from `before` to `after` (by `applyChange`), as one write: each
 * member's RSVP row ends as `after` says, however often it changed on the way. Only members the batch's events
 * name are looked at (every change of status raised one), so a batch costs what it changed, not the event's size.
 * `leftQueue` names everyone who left the waitlist on the way (left or promoted): their rows go, and a member who
 * left and joined again gets a new row at the end of the queue, as everyone who joined in the batch does.
 */
export const planWrite = (
  before: Places,
  after: Places,
  leftQueue: ReadonlySet<number>,
  cancelReminders: ReadonlySet<number>,
  events: ReadonlyArray<PlacesEvent>
): WritePlan => {
  const upsert: Array<readonly [number, RsvpStatus]> = []
  const remove: Array<number> = []
  const changed = new Set(events.flatMap((e) => (e.type === "RsvpChanged" ? [e.payload.user_id] : [])))
  for (const userId of changed) {
    const status = statusOf(after, userId)
    if (status === statusOf(before, userId)) continue
    if (status === undefined) remove.push(userId)
    else upsert.push([userId, status])
  }
  return {
    upsert,
    remove,
    unqueue: Waitlist.inQueueOrder(before.waitlist, leftQueue),
    enqueue: Waitlist.joinedSince(after.waitlist, before.waitlist.nextSequence),
    cancelReminders: [...cancelReminders],
    events
  }
}
