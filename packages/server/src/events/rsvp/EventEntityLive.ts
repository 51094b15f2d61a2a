import { Entity } from "@effect/cluster"
import {
  type CheckInResult,
  type CheckinWindowClosed,
  type EventCancelled,
  EventEntity,
  type InsufficientBalance,
  type NotAttending,
  type NotFound,
  type RsvpChoice
} from "@timebank/domain"
import { Effect, Exit } from "effect"
import { LedgerService } from "../../ledger/LedgerService.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { checkIn } from "./EntityCheckIn.js"
import { joinDecision, leaveDecision, refreshDecision, removalDecision, rsvpDecision } from "./EntityDecisions.js"
import { EventPlacesRepo } from "./EventPlacesRepo.js"
import { boundedRepo, makeEventWriter } from "./EventWriter.js"

/**
 * The Event entity of one event. Every capacity-affecting message is decided in memory, strictly one after the
 * other in arrival order, so a full event is never overbooked and the waitlist order is exact: the rules are
 * EventPlaces and EntityDecisions, the write-through (batches, one transaction per batch, recovery) is EventWriter.
 *
 * A defect (an SQL error, an exception, a hang) fails only the message that caused it: the others of its batch are
 * decided again one by one, and the writer fiber survives whatever a batch does.
 */
export const EventEntityLive = EventEntity.toLayer(
  Effect.gen(function*() {
    const [tenantPart, eventPart] = (yield* Entity.CurrentAddress).entityId.split(":")
    const repo = boundedRepo(yield* EventPlacesRepo)
    const ledger = yield* LedgerService
    const writer = yield* makeEventWriter(
      { tenantId: Number(tenantPart), eventId: Number(eventPart) },
      repo,
      yield* TenantDirectory
    )

    const Rsvp = ({ payload }: { readonly payload: { userId: number; isApproved: boolean; status: RsvpChoice } }) =>
      writer.decide(rsvpDecision(payload))

    const RemoveRsvp = ({ payload }: { readonly payload: { userId: number } }) =>
      writer.decide(removalDecision(payload))

    const JoinWaitlist = ({ payload }: { readonly payload: { userId: number; isApproved: boolean } }) =>
      writer.decide(joinDecision(payload))

    const LeaveWaitlist = ({ payload }: { readonly payload: { userId: number } }) =>
      writer.decide(leaveDecision(payload))

    const Refresh = () =>
      writer.decide(
        refreshDecision,
        // The event changed outside the entity: read its places again rather than trust what is remembered.
        { reload: true, missing: Exit.succeed({ promoted: [] }) }
      ).pipe(Effect.catchTag("NotFound", () => Effect.succeed({ promoted: [] as ReadonlyArray<number> })))

    const CheckIn = ({ payload }: { readonly payload: { attendeeId: number; actorId: number } }) =>
      writer.alone<CheckInResult, NotFound | EventCancelled | CheckinWindowClosed | NotAttending | InsufficientBalance>(
        (context) => checkIn(ledger, repo, payload, context)
      )

    return EventEntity.of({ Rsvp, RemoveRsvp, JoinWaitlist, LeaveWaitlist, Refresh, CheckIn })
  }),
  // A defect fails its own message only: without this, the entity would restart and replay every message in
  // flight, the poisoned one included, and wedge the event in a restart loop.
  { concurrency: "unbounded", maxIdleTime: "5 minutes", disableFatalDefects: true }
)
