import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

const Claimed = decodeRows(Schema.Struct({ key_id: Schema.Unknown }))

export interface Receipt {
  readonly keyId: number
  readonly webhookId: string
  readonly event: string
  readonly handled: boolean
}

/** Webhooks partners sent the current tenant, one row per key and webhook id (`federation_webhook_receipts`). */
export class WebhookReceiptsRepo extends Effect.Service<WebhookReceiptsRepo>()("WebhookReceiptsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /**
       * Records a receipt unless the key already sent this id; answers whether this call recorded it. A concurrent
       * claim of the same id waits for the first one's transaction: it answers false once that commits, and records
       * it after all if that rolls back.
       */
      claim: (r: Receipt) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_webhook_receipts ${
            sql.insert({
              key_id: r.keyId,
              webhook_id: r.webhookId,
              tenant_id: tenantId,
              event: r.event,
              handled: r.handled
            })
          }
            ON CONFLICT (key_id, webhook_id) DO NOTHING
            RETURNING key_id`.pipe(Claimed, Effect.map((rows) => rows.length > 0))
        ),

      /** Whether the key already sent this id (a cheap look before work that cannot run in the receipt's transaction). */
      seen: (keyId: number, webhookId: string) =>
        db.query((tenantId) =>
          sql`
            SELECT key_id FROM federation_webhook_receipts
            WHERE key_id = ${keyId} AND webhook_id = ${webhookId} AND tenant_id = ${tenantId}`.pipe(
            Claimed,
            Effect.map((rows) => rows.length > 0)
          )
        )
    } as const
  })
}) {}
