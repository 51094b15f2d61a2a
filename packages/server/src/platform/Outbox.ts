import { SqlClient } from "@effect/sql"
import { CurrentTenant } from "@timebank/domain"
import { Effect } from "effect"
import { dieOnSqlError } from "./TenantSql.js"

/** A domain event as a subscriber receives it. */
export interface OutboxEvent {
  readonly id: number
  readonly tenantId: number | null
  readonly type: string
  readonly payload: unknown
  readonly createdAt: Date
}

/**
 * Writes domain events into the outbox table. Call it inside the transaction of the change that raises the event:
 * the event exists exactly when the change committed. Delivery happens later (OutboxPublisher).
 */
export class Outbox extends Effect.Service<Outbox>()("Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (tenantId: number | null, type: string, payload: object) =>
      sql`INSERT INTO outbox_events (tenant_id, event_type, payload)
          VALUES (${tenantId}, ${type}, ${JSON.stringify(payload)}::jsonb)`.pipe(
        Effect.asVoid,
        dieOnSqlError,
        Effect.withSpan("Outbox.append", { attributes: { type } })
      )

    return {
      /** Records an event of the current tenant. */
      append: (type: string, payload: object) => Effect.flatMap(CurrentTenant, (t) => insert(t.id, type, payload)),
      /** Records a platform event that belongs to no tenant (or to one named explicitly, e.g. at creation). */
      appendFor: (tenantId: number | null, type: string, payload: object) => insert(tenantId, type, payload)
    } as const
  })
}) {}
