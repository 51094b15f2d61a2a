import {
  type Actor,
  type Attendee,
  CurrentTenant,
  CurrentUser,
  EventEntity,
  eventEntityId,
  type EventId,
  type RsvpChoice,
  type UserId,
  type UserSummary,
  type WaitlistView
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../../identity/UserSummaries.js"
import { CommunityMember } from "../../platform/Policy.js"
import { foundEvent } from "../EventLifecycle.js"
import { EventRepo } from "../EventRepo.js"
import { canEditEvent, EventEditor, requireEventEditor, requireEventMember } from "../EventsPolicy.js"
import { AttendeesRepo } from "./AttendeesRepo.js"

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
  dependencies: [AttendeesRepo.Default, EventRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const repo = yield* AttendeesRepo
    const events = yield* EventRepo
    const users = yield* UserSummaries
    const makeClient = yield* EventEntity.client

    const entity = (eventId: number) =>
      Effect.map(CurrentTenant, (tenant) => makeClient(eventEntityId(tenant.id, eventId)))

    const organiserOf = (eventId: number) => Effect.map(foundEvent(events.findById(eventId)), (row) => row.user_id)

    /** Each row with its member's summary, in order; a row whose member the users table does not know is left out. */
    const withMembers = <Row extends { readonly user_id: number }>(rows: ReadonlyArray<Row>) =>
      Effect.map(
        users.byIds(rows.map((row) => row.user_id)),
        (summaries) =>
          rows.flatMap((row) => {
            const user = summaries.get(row.user_id)
            return user === undefined ? [] : [[row, user] as const]
          }) as ReadonlyArray<readonly [Row, UserSummary]>
      )

    /** A message of the caller, as a member of this community, to the event's entity. */
    const asMember = <A, E, R>(
      eventId: number,
      send: (client: ReturnType<typeof makeClient>, member: Actor) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function*() {
        const member = yield* CommunityMember
        const client = yield* entity(eventId)
        return yield* transportIsDefect(send(client, member))
      })

    const rsvp = Effect.fn("Events.rsvp")(function*(eventId: EventId, status: RsvpChoice) {
      return yield* asMember(
        eventId,
        (client, m) => client.Rsvp({ userId: m.userId, isApproved: m.isApproved, status })
      )
    }, requireEventMember)

    const removeRsvp = Effect.fn("Events.removeRsvp")(function*(eventId: EventId) {
      return yield* asMember(eventId, (client, m) => client.RemoveRsvp({ userId: m.userId }))
    }, requireEventMember)

    const joinWaitlist = Effect.fn("Events.joinWaitlist")(function*(eventId: EventId) {
      return yield* asMember(
        eventId,
        (client, m) => client.JoinWaitlist({ userId: m.userId, isApproved: m.isApproved })
      )
    }, requireEventMember)

    const leaveWaitlist = Effect.fn("Events.leaveWaitlist")(function*(eventId: EventId) {
      return yield* asMember(eventId, (client, m) => client.LeaveWaitlist({ userId: m.userId }))
    }, requireEventMember)

    /** The organiser and admins see every entry; anyone else only their own position. */
    const waitlist = Effect.fn("Events.waitlist")(function*(eventId: EventId) {
      const actor = yield* CurrentUser
      const organiserId = yield* organiserOf(eventId)
      if (!canEditEvent(actor, { user_id: organiserId })) {
        const mine = yield* repo.positionOf(eventId, actor.userId)
        return { entries: [], my_position: mine.position, total: mine.total } satisfies WaitlistView
      }
      const entries = (yield* withMembers(yield* repo.waitlist(eventId))).map(([row, user], index) => ({
        user,
        position: index + 1,
        joined_at: DateTime.unsafeFromDate(row.created_at)
      }))
      const mine = entries.find((entry) => entry.user.id === actor.userId)
      return { entries, my_position: mine?.position ?? null, total: entries.length } satisfies WaitlistView
    })

    /** The roster, for the organiser, admins and members on it; anyone else gets an empty one. */
    const attendees = Effect.fn("Events.attendees")(function*(eventId: EventId) {
      const actor = yield* CurrentUser
      const organiserId = yield* organiserOf(eventId)
      const rows = yield* repo.roster(eventId)
      const onRoster = rows.some((row) => row.user_id === actor.userId)
      if (!canEditEvent(actor, { user_id: organiserId }) && !onRoster) return []
      return (yield* withMembers(rows)).map(([row, user]): Attendee => ({
        user,
        status: row.status,
        checked_in_at: row.checked_in_at === null ? null : DateTime.unsafeFromDate(row.checked_in_at),
        responded_at: DateTime.unsafeFromDate(row.updated_at)
      }))
    })

    const checkIn = Effect.fn("Events.checkIn")(function*(eventId: EventId, attendeeId: UserId) {
      const organiserId = yield* organiserOf(eventId)
      return yield* requireEventEditor({ user_id: organiserId })(Effect.gen(function*() {
        const manager = yield* EventEditor
        const client = yield* entity(eventId)
        return yield* transportIsDefect(client.CheckIn({ attendeeId, actorId: manager.userId }))
      }))
    })

    return { rsvp, removeRsvp, joinWaitlist, leaveWaitlist, waitlist, attendees, checkIn } as const
  })
}) {}
