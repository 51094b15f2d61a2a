import { Entity } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Schema } from "effect"
import { NotFound } from "../http/ApiError.js"
import { InsufficientBalance } from "../ledger/LedgerErrors.js"
import { RsvpChoice } from "./Event.js"
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
import { CheckInResult, RsvpRemoved, RsvpResult, WaitlistJoined, WaitlistLeft } from "./Rsvp.js"

const Member = { userId: Schema.Int, isApproved: Schema.Boolean }

/** The entity id of an event: tenant and event, so that ids never meet across communities. */
export const eventEntityId = (tenantId: number, eventId: number) => `${tenantId}:${eventId}`

/**
 * One event's places (entity id = `<tenant>:<event>`). Every message that can change who is going — RSVPs, the
 * waitlist, capacity edits, check-ins — goes through it, so that a full event is never overbooked and the waitlist
 * order is exact, whichever runner receives the request.
 */
export const EventEntity = Entity.make("Event", [
  Rpc.make("Rsvp", {
    payload: { ...Member, status: RsvpChoice },
    success: RsvpResult,
    error: Schema.Union(NotFound, EventCancelled, EventEnded, MembersOnly, EventFull, AlreadyAttended)
  }),
  Rpc.make("RemoveRsvp", {
    payload: { userId: Schema.Int },
    success: RsvpRemoved,
    error: Schema.Union(NotFound, AlreadyAttended)
  }),
  Rpc.make("JoinWaitlist", {
    payload: Member,
    success: WaitlistJoined,
    error: Schema.Union(NotFound, EventCancelled, EventEnded, MembersOnly, EventFull, WaitlistNotNeeded)
  }),
  Rpc.make("LeaveWaitlist", {
    payload: { userId: Schema.Int },
    success: WaitlistLeft,
    error: NotFound
  }),
  /** The event was edited, cancelled or deleted: forget what is cached and promote waiters into new places. */
  Rpc.make("Refresh", {
    payload: {},
    success: Schema.Struct({ promoted: Schema.Array(Schema.Int) })
  }),
  Rpc.make("CheckIn", {
    payload: { attendeeId: Schema.Int, actorId: Schema.Int },
    success: CheckInResult,
    error: Schema.Union(NotFound, EventCancelled, CheckinWindowClosed, NotAttending, InsufficientBalance)
  })
])
