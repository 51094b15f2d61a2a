import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const PollLink = Schema.Struct({ event_id: DbInt, poll_id: DbInt })

/**
 * The polls events carry (`event_polls`). The table has no tenant column: a join on `events` scopes every
 * statement. Which polls may be attached is the polls feature's answer (PollsService.ownedBy), asked before a write;
 * a poll id written here has passed it or was on the event already.
 */
export class EventPollsRepo extends Effect.Service<EventPollsRepo>()("EventPollsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Links the polls to every event of this tenant among `eventIds`, in one statement. */
    const link = (eventIds: ReadonlyArray<number>, pollIds: ReadonlyArray<number>) =>
      eventIds.length === 0 || pollIds.length === 0
        ? Effect.void
        : db.query((tenantId) =>
          sql`
            INSERT INTO event_polls (event_id, poll_id)
            SELECT e.id, p.id FROM events e, unnest(${pgArray(pollIds)}::bigint[]) AS p(id)
            WHERE e.tenant_id = ${tenantId} AND e.id = ANY(${pgArray(eventIds)}::bigint[])
            ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
        )

    return {
      /** Poll ids per event, for a page. */
      byEvents: (eventIds: ReadonlyArray<number>) =>
        eventIds.length === 0
          ? Effect.succeed(new Map<number, ReadonlyArray<number>>())
          : db.query((tenantId) =>
            sql`
              SELECT ep.event_id, ep.poll_id FROM event_polls ep JOIN events e ON e.id = ep.event_id
              WHERE e.tenant_id = ${tenantId} AND ep.event_id = ANY(${pgArray(eventIds)}::bigint[])
              ORDER BY ep.event_id, ep.poll_id`.pipe(
              decodeRows(PollLink),
              Effect.map((rows) => {
                const byEvent = new Map<number, Array<number>>()
                for (const link of rows) {
                  byEvent.set(link.event_id, [...(byEvent.get(link.event_id) ?? []), link.poll_id])
                }
                return byEvent as ReadonlyMap<number, ReadonlyArray<number>>
              })
            )
          ),

      link,

      /** The events' polls become exactly `pollIds`. */
      replace: (eventIds: ReadonlyArray<number>, pollIds: ReadonlyArray<number>) =>
        eventIds.length === 0 ? Effect.void : db.query((tenantId) =>
          Effect.gen(function*() {
            yield* sql`DELETE FROM event_polls WHERE event_id IN (
              SELECT id FROM events WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(eventIds)}::bigint[]))`
            yield* link(eventIds, pollIds)
          })
        )
    } as const
  })
}) {}
