import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes for funder reports (decisions D15, D17): each figure and export reads only the community's rows of the
 * date range asked for, however large the tables grow.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Approved volunteering hours of a day range (hours by month and organisation, volunteers, the hours and
  // organisations exports), summed from the index alone.
  yield* sql`CREATE INDEX vol_hours_tenant_approved_date ON vol_hours (tenant_id, date)
             INCLUDE (organisation_id, user_id, hours) WHERE status = 'approved'`
  // The transactions export: every transaction of a range (all types), oldest first.
  yield* sql`CREATE INDEX ledger_transactions_tenant_created ON ledger_transactions (tenant_id, created_at, id)`
})
