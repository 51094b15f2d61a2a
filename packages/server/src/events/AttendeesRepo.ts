import type { RsvpStatus, UserId, UserSummary } from "@timebank/domain"
import { Effect } from "effect"
import { TenantSql } from "../platform/TenantSql.js"

interface UserColumns {
  readonly user_id: string
  readonly first_name: string
  readonly last_name: string
  readonly avatar_url: string | null
}

export interface WaitlistRow extends UserColumns {
  readonly created_at: Date
}

export interface RosterRow extends UserColumns {
  readonly status: RsvpStatus
  readonly checked_in_at: Date | null
  readonly updated_at: Date
}

/** RSVPs that put a member on the roster; `not_going` and `declined` are answers, not attendance. */
export const ROSTER_STATUSES: ReadonlyArray<RsvpStatus> = ["going", "interested", "invited", "attended"]

export const summaryOf = (row: UserColumns): UserSummary => ({
  id: Number(row.user_id) as UserId,
  first_name: row.first_name,
  last_name: row.last_name,
  avatar_url: row.avatar_url
})

/**
 * Reads of an event's attendance for the RSVP routes: who organises it, the waitlist in order and the roster, each
 * with the members' names in the same query. Writes belong to the Event entity (EventPlacesRepo).
 */
export class AttendeesRepo extends Effect.Service<AttendeesRepo>()("AttendeesRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Every waiting member, first come first (the waitlist order is the id order). */
    const waitlist = (eventId: number) =>
      db.query((tenantId) =>
        sql<WaitlistRow>`
          SELECT w.user_id, w.created_at, u.first_name, u.last_name, u.avatar_url
          FROM event_waitlist w JOIN users u ON u.id = w.user_id AND u.tenant_id = w.tenant_id
          WHERE w.tenant_id = ${tenantId} AND w.event_id = ${eventId}
          ORDER BY w.id`
      )

    /** One member's waitlist position (null when not waiting) and the length of the waitlist. */
    const positionOf = (eventId: number, userId: number) =>
      db.query((tenantId) =>
        sql<{ total: number; position: number }>`
          WITH mine AS (
            SELECT id FROM event_waitlist WHERE tenant_id = ${tenantId} AND event_id = ${eventId} AND user_id = ${userId}
          )
          SELECT
            (SELECT count(*)::int FROM event_waitlist WHERE tenant_id = ${tenantId} AND event_id = ${eventId}) AS total,
            (SELECT count(*)::int FROM event_waitlist w, mine
             WHERE w.tenant_id = ${tenantId} AND w.event_id = ${eventId} AND w.id <= mine.id) AS position`.pipe(
          Effect.map((rows) => ({
            total: rows[0]?.total ?? 0,
            position: rows[0] === undefined || rows[0].position === 0 ? null : rows[0].position
          }))
        )
      )

    /** The RSVPs on the roster, in the order they were first given. */
    const roster = (eventId: number) =>
      db.query((tenantId) =>
        sql<RosterRow>`
          SELECT r.user_id, r.status, r.checked_in_at, r.updated_at, u.first_name, u.last_name, u.avatar_url
          FROM event_rsvps r JOIN users u ON u.id = r.user_id AND u.tenant_id = r.tenant_id
          WHERE r.tenant_id = ${tenantId} AND r.event_id = ${eventId} AND r.status IN ${sql.in(ROSTER_STATUSES)}
          ORDER BY r.id`
      )

    return { waitlist, positionOf, roster } as const
  })
}) {}
