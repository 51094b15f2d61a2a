import { SqlClient } from "@effect/sql"
import { CurrentTenant, DomainEvent } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "./SqlArrays.js"
import { currentTraceParent } from "./Telemetry.js"
import { dieOnSqlError } from "./TenantSql.js"

const encodeEvent = Schema.encodeSync(DomainEvent)

/** The row of an event: `event_type` is the tag, `payload` the encoded event without its tag (JSON text). */
export const outboxRow = (event: DomainEvent) => {
  const { _tag, ...payload } = encodeEvent(event)
  return { type: _tag, payload: JSON.stringify(payload) }
}

/**
 * Writes domain events into the outbox table. Call it inside the transaction of the change that raises the event:
 * the event exists exactly when the change committed. Delivery happens later (OutboxPublisher). Only members of
 * the `DomainEvent` union are accepted; each is encoded by its schema.
 */
export class Outbox extends Effect.Service<Outbox>()("Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // Each row remembers the (traced) span that recorded it, so that its deliveries link back to the request.
    const insertOne = (tenantId: number | null, event: DomainEvent) =>
      Effect.flatMap(currentTraceParent, (traceParent) => {
        const row = outboxRow(event)
        return sql`INSERT INTO outbox_events (tenant_id, event_type, payload, trace_parent)
          VALUES (${tenantId}, ${row.type}, ${row.payload}::jsonb, ${traceParent})`
      }).pipe(
        Effect.asVoid,
        dieOnSqlError,
        // Every domain write appends: its span captures no stack trace (that is a `new Error()` each time).
        Effect.withSpan("Outbox.append", { attributes: { type: event._tag }, captureStackTrace: false })
      )

    // One statement for a whole batch (the ledger records a TransactionCompleted per move of a group commit).
    const insertMany = (tenantId: number | null, events: ReadonlyArray<DomainEvent>) =>
      Effect.flatMap(currentTraceParent, (traceParent) => {
        const rows = events.map(outboxRow)
        return sql`INSERT INTO outbox_events (tenant_id, event_type, payload, trace_parent)
          SELECT ${tenantId}, e.type, e.payload::jsonb, ${traceParent}
          FROM unnest(${pgArray(rows.map((r) => r.type))}::text[], ${pgArray(rows.map((r) => r.payload))}::text[])
               WITH ORDINALITY AS e(type, payload, n)
          ORDER BY e.n`
      }).pipe(
        Effect.asVoid,
        dieOnSqlError,
        Effect.withSpan("Outbox.appendAll", { attributes: { count: events.length }, captureStackTrace: false })
      )

    const appendAllFor = (tenantId: number | null, events: ReadonlyArray<DomainEvent>) =>
      events.length === 0
        ? Effect.void
        : events.length === 1
        ? insertOne(tenantId, events[0]!)
        : insertMany(tenantId, events)

    return {
      /** Records an event of the current tenant. */
      append: (event: DomainEvent) => Effect.flatMap(CurrentTenant, (t) => insertOne(t.id, event)),
      /** Records several events of the current tenant in one statement, in the order given. */
      appendAll: (events: ReadonlyArray<DomainEvent>) =>
        events.length === 0 ? Effect.void : Effect.flatMap(CurrentTenant, (t) => appendAllFor(t.id, events)),
      /** Records an event of a community named explicitly (e.g. at its creation), or of none (`null`). */
      appendFor: (tenantId: number | null, event: DomainEvent) => insertOne(tenantId, event),
      /** Records several events of a community named explicitly in one statement, in the order given. */
      appendAllFor
    } as const
  })
}) {}
