import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Why an event was set aside for a subscriber: `failed` after its attempts ran out, `undecodable` when the row is
  // not a domain event the service knows (unknown type, payload not matching its schema) — parked unattempted.
  yield* sql`
    ALTER TABLE outbox_dead_letters
      ADD COLUMN reason text NOT NULL DEFAULT 'failed' CHECK (reason IN ('failed', 'undecodable'))`
})
