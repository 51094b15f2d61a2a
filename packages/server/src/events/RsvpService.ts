import {
  type Attendee,
  CurrentTenant,
  CurrentUser,
  EventEntity,
  eventEntityId,
  type EventId,
  NotFound,
  type RsvpChoice,
  type UserId,
  type WaitlistView
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { CommunityMember } from "../identity/Policy.js"
import { requireFeature } from "../platform/FeatureGate.js"
import { AttendeesRepo, summaryOf } from "./AttendeesRepo.js"
import { EventRepo } from "./EventRepo.js"
import { canEditEvent, EventEditor, requireEventEditor, requireEventMember } from "./EventsPolicy.js"

const gate = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("events"), effect)

/** The cluster could not deliver a message: an outage or a bug, never an answer to the caller. */
const transportIsDefect = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, { readonly _tag: "MailboxFull" | "AlreadyProcessingMessage" | "PersistenceError" }> =>
      typeof e === "object" && e !== null && "_tag" in e &&
      (e._tag === "MailboxFull" || e._tag === "AlreadyProcessingMessage" || e._tag === "PersistenceError"),
    Effect.die
  ) as Effect.Effect<
    A,
    Exclude<E, { readonly _tag: "MailboxFull" | "AlreadyProcessingMessage" | "PersistenceError" }>,
    R
  >

/**
 * RSVPs, the waitlist, the roster and check-in (spec "RSVP", decisions D8). Everything that can change who holds a
 * place is a message to the event's cluster entity, which decides one message at a time; the reads come straight
 * from the database.
 */
export class RsvpService extends Effect.Service<RsvpService>()("RsvpService", {
  dependencies: [AttendeesRepo.Default, EventRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* AttendeesRepo
    const events = yield* EventRepo
    const makeClient = yield* EventEntity.client

    const entity = (eventId: number) =>
      Effect.map(CurrentTenant, (tenant) => makeClient(eventEntityId(tenant.id, eventId)))

    const organiserOf = (eventId: number) =>
      Effect.flatMap(
        events.findById(eventId),
        Option.match({
          onNone: () => Effect.fail(NotFound.of("Event")),
          onSome: (row) => Effect.succeed(Number(row.user_id))
        })
      )

    const rsvp = Effect.fn("Events.rsvp")(
      function*(eventId: EventId, status: RsvpChoice) {
        const actor = yield* CommunityMember
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.Rsvp({ userId: actor.userId, isApproved: actor.isApproved, status }))
      },
      requireEventMember,
      gate
    )

    const removeRsvp = Effect.fn("Events.removeRsvp")(
      function*(eventId: EventId) {
        const actor = yield* CommunityMember
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.RemoveRsvp({ userId: actor.userId }))
      },
      requireEventMember,
      gate
    )

    const joinWaitlist = Effect.fn("Events.joinWaitlist")(
      function*(eventId: EventId) {
        const actor = yield* CommunityMember
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.JoinWaitlist({ userId: actor.userId, isApproved: actor.isApproved }))
      },
      requireEventMember,
      gate
    )

    const leaveWaitlist = Effect.fn("Events.leaveWaitlist")(
      function*(eventId: EventId) {
        const actor = yield* CommunityMember
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.LeaveWaitlist({ userId: actor.userId }))
      },
      requireEventMember,
      gate
    )

    /** The organiser and admins see every entry; anyone else only their own position. */
    const waitlist = Effect.fn("Events.waitlist")(function*(eventId: EventId) {
      const actor = yield* CurrentUser
      const organiserId = yield* organiserOf(eventId)
      if (!canEditEvent(actor, { user_id: organiserId })) {
        const mine = yield* repo.positionOf(eventId, actor.userId)
        return { entries: [], my_position: mine.position, total: mine.total } satisfies WaitlistView
      }
      const entries = (yield* repo.waitlist(eventId)).map((row, index) => ({
        user: summaryOf(row),
        position: index + 1,
        joined_at: DateTime.unsafeFromDate(row.created_at)
      }))
      const mine = entries.find((entry) => entry.user.id === actor.userId)
      return { entries, my_position: mine?.position ?? null, total: entries.length } satisfies WaitlistView
    }, gate)

    /** The roster, for the organiser, admins and members on it; anyone else gets an empty one. */
    const attendees = Effect.fn("Events.attendees")(function*(eventId: EventId) {
      const actor = yield* CurrentUser
      const organiserId = yield* organiserOf(eventId)
      const rows = yield* repo.roster(eventId)
      const onRoster = rows.some((row) => Number(row.user_id) === actor.userId)
      if (!canEditEvent(actor, { user_id: organiserId }) && !onRoster) return []
      return rows.map((row): Attendee => ({
        user: summaryOf(row),
        status: row.status,
        checked_in_at: row.checked_in_at === null ? null : DateTime.unsafeFromDate(row.checked_in_at),
        responded_at: DateTime.unsafeFromDate(row.updated_at)
      }))
    }, gate)

    const checkIn = Effect.fn("Events.checkIn")(function*(eventId: EventId, attendeeId: UserId) {
      const organiserId = yield* organiserOf(eventId)
      return yield* requireEventEditor({ user_id: organiserId })(Effect.gen(function*() {
        const manager = yield* EventEditor
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.CheckIn({ attendeeId, actorId: manager.userId }))
      }))
    }, gate)

    return { rsvp, removeRsvp, joinWaitlist, leaveWaitlist, waitlist, attendees, checkIn } as const
  })
}) {}
