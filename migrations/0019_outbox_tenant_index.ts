import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A community's latest domain events (the admin dashboard's activity, decisions D17), newest first by time: without
 * this index that read scans and sorts the whole outbox, every tenant's events included.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX outbox_events_tenant_latest ON outbox_events (tenant_id, created_at DESC, id DESC)`
})
