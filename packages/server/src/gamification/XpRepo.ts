import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** One member's points for one domain event, as the subscriber writes them. */
export interface XpRecord {
  readonly userId: number
  readonly eventType: string
  readonly quantity: number
  readonly points: number
  readonly multiplier: number
  /** Unique per community: the outbox event, the member and the event type; a redelivery writes nothing. */
  readonly sourceKey: string
  readonly occurredAt: Date
}

const recorded = decodeRows(Schema.Struct({ user_id: DbInt }))
const total = decodeSingle(Schema.Struct({ xp: DbInt }))

/** The XP ledger (`gamification_xp`): points earned per member and event, and the progress badges count. */
export class XpRepo extends Effect.Service<XpRepo>()("XpRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Writes the records not written before (by source key); answers the members of those written. */
      record: (records: ReadonlyArray<XpRecord>) =>
        records.length === 0
          ? Effect.succeed([])
          : db.query((tenantId) =>
            sql`
              INSERT INTO gamification_xp
                (tenant_id, user_id, event_type, quantity, points, multiplier, source_key, occurred_at)
              SELECT ${tenantId}, r.user_id, r.event_type, r.quantity, r.points, r.multiplier, r.source_key,
                     r.occurred_at
              FROM unnest(
                ${pgArray(records.map((r) => r.userId))}::bigint[],
                ${pgArray(records.map((r) => r.eventType))}::text[],
                ${pgArray(records.map((r) => r.quantity))}::numeric[],
                ${pgArray(records.map((r) => r.points))}::int[],
                ${pgArray(records.map((r) => r.multiplier))}::float8[],
                ${pgArray(records.map((r) => r.sourceKey))}::text[],
                ${pgArray(records.map((r) => r.occurredAt.toISOString()))}::timestamptz[]
              ) AS r(user_id, event_type, quantity, points, multiplier, source_key, occurred_at)
              ON CONFLICT (tenant_id, source_key) DO NOTHING
              RETURNING user_id`.pipe(recorded, Effect.map((rows) => rows.map((r) => r.user_id)))
          ),

      /** A member's points. */
      totalOf: (userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT coalesce(sum(points), 0)::bigint AS xp FROM gamification_xp
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(total, Effect.map((r) => r.xp))
        )
    } as const
  })
}) {}
