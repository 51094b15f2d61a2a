import {
  type CheckInResult,
  CheckinWindowClosed,
  type EventId,
  fromCents,
  NotAttending,
  type TransactionId,
  type UserId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import type { LedgerService } from "../../ledger/LedgerService.js"
import { type DecisionContext, refuse } from "./EntityDecisions.js"
import { applyChange, canCheckIn, checkInCents, checkInWindowOpen, noChange, statusOf } from "./EventPlaces.js"
import type { EventPlacesRepo } from "./EventPlacesRepo.js"

/**
 * Check-in (decisions D8): the organiser pays the attendee through the Ledger entity, then the RSVP is `attended`.
 * It runs alone between the entity's batches; it answers with the result and the places it leaves.
 */
export const checkIn = (
  ledger: LedgerService,
  repo: EventPlacesRepo,
  input: { readonly attendeeId: number; readonly actorId: number },
  { event, now, places }: DecisionContext
) =>
  Effect.gen(function*() {
    if (event.status === "cancelled") return yield* refuse.cancelled()
    if (!checkInWindowOpen(event, now)) {
      return yield* new CheckinWindowClosed({
        message: "Check-in opens 30 minutes before the start and closes 24 hours after the end"
      })
    }
    const status = statusOf(places, input.attendeeId)
    const cents = checkInCents(event)
    const result = (transactionId: number | null, already: boolean): CheckInResult => ({
      event_id: event.id as EventId,
      attendee_id: input.attendeeId as UserId,
      status: "attended",
      credited_hours: fromCents(cents),
      transaction_id: transactionId as TransactionId | null,
      already_checked_in: already
    })
    if (status === "attended") {
      const earlier = yield* repo.checkIn(event.id, input.attendeeId)
      const transactionId = Option.flatMap(earlier, (row) => Option.fromNullable(row.checkin_transaction_id))
      return [result(Option.getOrNull(transactionId), true), places] as const
    }
    if (!canCheckIn(status) || input.attendeeId === event.organiserId) {
      return yield* new NotAttending({ message: "This member has no RSVP to this event", field: "attendeeId" })
    }
    // The ledger's idempotency key names event and attendee: a retry after a failure below pays once.
    const posted = yield* ledger.payCheckIn({
      eventId: event.id,
      organiserId: event.organiserId,
      attendeeId: input.attendeeId,
      cents,
      description: `Check-in: ${event.title}`,
      createdBy: input.actorId
    })
    yield* repo.markAttended(event, {
      userId: input.attendeeId,
      transactionId: posted.transactionId,
      cents,
      by: input.actorId
    })
    const after = applyChange(places, { ...noChange, rsvps: [[input.attendeeId, "attended"]] })
    return [result(posted.transactionId, false), after] as const
  })
