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
      /** Records several events of the current tenant in one statement, in the order given. */
      appendAll: (events: ReadonlyArray<{ readonly type: string; readonly payload: object }>) =>
        events.length === 0 ?
          Effect.void :
          Effect.flatMap(CurrentTenant, (t) =>
            sql`INSERT INTO outbox_events (tenant_id, event_type, payload)
              SELECT ${t.id}, e.type, e.payload::jsonb
              FROM unnest(${events.map((e) => e.type) as unknown as string}::text[],
                          ${events.map((e) => JSON.stringify(e.payload)) as unknown as string}::text[])
                   WITH ORDINALITY AS e(type, payload, n)
              ORDER BY e.n`.pipe(
              Effect.asVoid,
              dieOnSqlError,
              Effect.withSpan("Outbox.appendAll", { attributes: { count: events.length } })
            )),
      /** Records a platform event that belongs to no tenant (or to one named explicitly, e.g. at creation). */
      appendFor: (tenantId: number | null, type: string, payload: object) => insert(tenantId, type, payload)
    } as const
  })
}) {}
