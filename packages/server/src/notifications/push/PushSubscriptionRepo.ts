import { Effect, Schema } from "effect"
import { DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

export const SubscribedRow = Schema.Struct({
  id: DbInt,
  kind: Schema.Literal("web", "fcm", "apns"),
  inserted: Schema.Boolean
})
export type SubscribedRow = typeof SubscribedRow.Type

export interface NewSubscription {
  readonly kind: "web" | "fcm" | "apns"
  /** The browser's endpoint URL, or the device token. */
  readonly endpoint: string
  readonly p256dh: string | null
  readonly auth: string | null
}

const CountRow = Schema.Struct({ web: DbInt, mobile: DbInt })
const removedRows = decodeRows(Schema.Struct({ id: DbInt }))

/** `push_subscriptions` of the current tenant: one row per (member, endpoint or token). */
export class PushSubscriptionRepo extends Effect.Service<PushSubscriptionRepo>()("PushSubscriptionRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /**
       * Inserts the subscription, or refreshes the keys of the member's existing one with that endpoint
       * (`inserted` false). `xmax = 0` holds only for a row this statement inserted.
       */
      upsert: (userId: number, s: NewSubscription) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO push_subscriptions (tenant_id, user_id, kind, endpoint, p256dh, auth)
            VALUES (${tenantId}, ${userId}, ${s.kind}, ${s.endpoint}, ${s.p256dh}, ${s.auth})
            ON CONFLICT (tenant_id, user_id, endpoint)
              DO UPDATE SET kind = EXCLUDED.kind, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
            RETURNING id, kind, (xmax = 0) AS inserted`.pipe(decodeSingle(SubscribedRow))
        ),

      /** Removes the member's subscriptions with this endpoint or token; how many there were. */
      remove: (userId: number, endpoint: string) =>
        db.query((tenantId) =>
          sql`
            DELETE FROM push_subscriptions
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND endpoint = ${endpoint}
            RETURNING id`.pipe(removedRows, Effect.map((rows) => rows.length))
        ),

      counts: (userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT count(*) FILTER (WHERE kind = 'web') AS web, count(*) FILTER (WHERE kind <> 'web') AS mobile
            FROM push_subscriptions WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(decodeSingle(CountRow))
        ),

      /** A push service said the subscription no longer exists (404/410). */
      deleteById: (id: number) =>
        db.query((tenantId) => sql`DELETE FROM push_subscriptions WHERE tenant_id = ${tenantId} AND id = ${id}`)
    } as const
  })
}) {}
