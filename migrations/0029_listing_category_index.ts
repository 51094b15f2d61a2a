import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The public listings list filtered by category (issue 20, `listings` bench): active, live listings of one category
 * of the tenant, newest first, read straight off one index instead of walking `listings_category` (all tenants'
 * rows of the category, deleted and pending ones included) and filtering.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX listings_active_category ON listings (tenant_id, category_id, id DESC)
    WHERE deleted_at IS NULL AND status = 'active'`
})
