import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The `federation.transfers.recover` job's scan: one community's outbound transfers still `pending`, oldest first.
 * Pending rows are few (a transfer settles within seconds), so the index stays small.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX federation_outbound_transfers_pending ON federation_outbound_transfers (tenant_id, created_at)
    WHERE status = 'pending'`
})
