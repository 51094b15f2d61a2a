import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

/** Where a subscriber stands: the (transaction, event id) of the last event it is done with. */
export interface CursorPosition {
  readonly txId: string
  readonly eventId: number
}

/**
 * A subscriber's cursor. It moves in memory after every event the subscriber is done with and is saved once per
 * batch (and when the publisher stops), not once per event: a durable write per event could not keep up with a busy
 * ledger. A crash between saves hands at most one batch over again, which idempotent subscribers absorb.
 */
export const openCursor = (subscriber: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO outbox_cursors (subscriber) VALUES (${subscriber}) ON CONFLICT DO NOTHING`
    const [saved] = yield* sql<{ tx_id: string; event_id: string }>`
      SELECT tx_id::text AS tx_id, event_id FROM outbox_cursors WHERE subscriber = ${subscriber}`
    let position: CursorPosition = { txId: saved!.tx_id, eventId: Number(saved!.event_id) }
    let stored = position

    const save = Effect.suspend((): Effect.Effect<void, SqlError> => {
      const current = position
      if (current === stored) return Effect.void
      return sql`UPDATE outbox_cursors SET tx_id = ${current.txId}::xid8, event_id = ${current.eventId},
          updated_at = now()
        WHERE subscriber = ${subscriber}`.pipe(
        Effect.tap(() => {
          stored = current
        }),
        Effect.asVoid
      )
    })

    return {
      get position() {
        return position
      },
      moveTo: (next: CursorPosition) => {
        position = next
      },
      save
    } as const
  })
