import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes for the admin dashboard (decisions D17): each figure is one aggregate over a range of one of these, so a
 * community's dashboard reads only its own rows of the day range or state asked for, however large the tables grow.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Members by status: counted from the index alone (erased accounts are not in it).
  yield* sql`CREATE INDEX users_tenant_live_status ON users (tenant_id, status) WHERE deleted_at IS NULL`
  // Trends: accounts, listings and reports created per day of a range.
  yield* sql`CREATE INDEX users_tenant_created ON users (tenant_id, created_at)`
  yield* sql`CREATE INDEX listings_tenant_created ON listings (tenant_id, created_at)`
  yield* sql`CREATE INDEX member_reports_tenant_created ON member_reports (tenant_id, created_at)`
  // Exchanges of a month or a day range: one range scan per transaction type counted, their hours summed from the
  // index alone (also funder reports).
  yield* sql`CREATE INDEX ledger_transactions_type_created ON ledger_transactions (tenant_id, type, created_at)
             INCLUDE (amount)`
  // Groups by state (groups awaiting review), newest first.
  yield* sql`CREATE INDEX groups_status ON groups (tenant_id, status, id DESC) WHERE deleted_at IS NULL`
})
