import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const userIds = decodeRows(Schema.Struct({ user_id: DbInt }))

/** Who follows an event, for features that tell them of it (notifications): events' published read of its RSVPs. */
export class EventAudience extends Effect.Service<EventAudience>()("EventAudience", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Members `going` or `interested` in any of `eventIds`, each once (spec: who hears of an edit). */
      goingOrInterested: (
        eventIds: ReadonlyArray<number>
      ): Effect.Effect<ReadonlyArray<number>, never, CurrentTenant> =>
        eventIds.length === 0
          ? Effect.succeed([])
          : db.query((tenantId) =>
            sql`SELECT DISTINCT user_id FROM event_rsvps
                WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(eventIds)}::bigint[])
                  AND status IN ('going', 'interested')
                ORDER BY user_id`.pipe(userIds, Effect.map((rows) => rows.map((r) => r.user_id)))
          )
    } as const
  })
}) {}
