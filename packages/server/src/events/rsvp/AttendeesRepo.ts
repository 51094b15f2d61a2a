import { type RsvpCounts, RsvpStatus } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A waiting member, first come first. */
export const WaitlistRow = Schema.Struct({ user_id: DbInt, created_at: DbDate })
export type WaitlistRow = typeof WaitlistRow.Type

/** An RSVP on the roster. */
export const RosterRow = Schema.Struct({
  user_id: DbInt,
  status: RsvpStatus,
  checked_in_at: Schema.NullOr(DbDate),
  updated_at: DbDate
})
export type RosterRow = typeof RosterRow.Type

/** The caller's own answer to an event: RSVP status and place on the waitlist. */
export interface ViewerStatus {
  readonly rsvp: RsvpStatus | null
  readonly position: number | null
}

const Position = Schema.Struct({ total: Schema.Int, position: Schema.Int })
const Counts = Schema.Struct({ event_id: DbInt, going: Schema.Int, interested: Schema.Int, waitlist: Schema.Int })
const Answer = Schema.Struct({
  event_id: DbInt,
  rsvp: Schema.NullOr(RsvpStatus),
  position: Schema.NullOr(Schema.Int)
})
const UserIdRow = Schema.Struct({ user_id: DbInt })

/** RSVPs that put a member on the roster; `not_going` and `declined` are answers, not attendance. */
export const ROSTER_STATUSES: ReadonlyArray<RsvpStatus> = ["going", "interested", "invited", "attended"]

/**
 * Reads of events' attendance (RSVPs and waitlists): the waitlist in order, the roster, counts and the viewer's own
 * answer for a page, and who hears that an event is off. Writes belong to the Event entity (EventPlacesRepo).
 */
export class AttendeesRepo extends Effect.Service<AttendeesRepo>()("AttendeesRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Every waiting member, first come first (the waitlist order is the id order). */
      waitlist: (eventId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT user_id, created_at FROM event_waitlist
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId}
            ORDER BY id`.pipe(decodeRows(WaitlistRow))
        ),

      /** One member's waitlist position (null when not waiting) and the length of the waitlist. */
      positionOf: (eventId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            WITH mine AS (
              SELECT id FROM event_waitlist
              WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}
            )
            SELECT
              (SELECT count(*)::int FROM event_waitlist WHERE tenant_id = ${tenantId} AND event_id = ${eventId})
                AS total,
              (SELECT count(*)::int FROM event_waitlist w, mine
               WHERE w.tenant_id = ${tenantId} AND w.event_id = ${eventId} AND w.id <= mine.id) AS position`.pipe(
            decodeSingle(Position),
            Effect.map((row) => ({ total: row.total, position: row.position === 0 ? null : row.position }))
          )
        ),

      /** The RSVPs on the roster, in the order they were first given. */
      roster: (eventId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT user_id, status, checked_in_at, updated_at FROM event_rsvps
            WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND status IN ${sql.in(ROSTER_STATUSES)}
            ORDER BY id`.pipe(decodeRows(RosterRow))
        ),

      /** Going (attended included), interested and waiting per event: one grouped query for a page. */
      counts: (eventIds: ReadonlyArray<number>) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, RsvpCounts>())
          : db.query((tenantId) =>
            sql`
              SELECT event_id,
                     count(*) FILTER (WHERE kind IN ('going', 'attended'))::int AS going,
                     count(*) FILTER (WHERE kind = 'interested')::int AS interested,
                     count(*) FILTER (WHERE kind = 'waiting')::int AS waitlist
              FROM (
                SELECT event_id, status AS kind FROM event_rsvps
                WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                  AND status IN ('going', 'attended', 'interested')
                UNION ALL
                SELECT event_id, 'waiting' FROM event_waitlist
                WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
              ) AS answers
              GROUP BY event_id`.pipe(
              decodeRows(Counts),
              Effect.map((rows) =>
                new Map(
                  rows.map((r) => [r.event_id, { going: r.going, interested: r.interested, waitlist: r.waitlist }])
                )
              )
            )
          ),

      /** The viewer's RSVP and waitlist position on each event of a page: one statement. */
      viewerStatus: (eventIds: ReadonlyArray<number>, userId: number) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, ViewerStatus>())
          : db.query((tenantId) =>
            sql`
              SELECT event_id, status AS rsvp, NULL::int AS position FROM event_rsvps
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
                AND event_id = ANY(${pgArray(eventIds)}::bigint[])
              UNION ALL
              SELECT w.event_id, NULL, (
                SELECT count(*)::int FROM event_waitlist earlier
                WHERE earlier.tenant_id = ${tenantId} AND earlier.event_id = w.event_id AND earlier.id <= w.id
              ) FROM event_waitlist w
              WHERE w.tenant_id = ${tenantId} AND w.user_id = ${userId}
                AND w.event_id = ANY(${pgArray(eventIds)}::bigint[])`.pipe(
              decodeRows(Answer),
              Effect.map((answers) => {
                const byEvent = new Map<number, ViewerStatus>()
                for (const answer of answers) {
                  const known = byEvent.get(answer.event_id) ?? { rsvp: null, position: null }
                  byEvent.set(answer.event_id, {
                    rsvp: answer.rsvp ?? known.rsvp,
                    position: answer.position ?? known.position
                  })
                }
                return byEvent
              })
            )
          ),

      /**
       * Who hears that these events are off: members going, interested or invited, and those waiting, each once,
       * without the organiser. One statement.
       */
      recipients: (eventIds: ReadonlyArray<number>, organiserId: number) =>
        eventIds.length === 0
          ? Effect.succeed<ReadonlyArray<number>>([])
          : db.query((tenantId) =>
            sql`
              SELECT user_id FROM event_rsvps
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                -- the statuses that hear about a cancellation or deletion (spec "Event-related notifications")
                AND status IN ('going', 'interested', 'invited') AND user_id <> ${organiserId}
              UNION
              SELECT user_id FROM event_waitlist
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                AND user_id <> ${organiserId}
              ORDER BY user_id`.pipe(decodeRows(UserIdRow), Effect.map((rows) => rows.map((r) => r.user_id)))
          )
    } as const
  })
}) {}
