import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Reports members make about content or other members (decisions D14); admins resolve them later (D15, D17). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE member_reports (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      reporter_id bigint NOT NULL REFERENCES users (id),
      target_type text NOT NULL CHECK (
        target_type IN ('user', 'listing', 'event', 'feed_post', 'comment', 'review', 'group', 'message')
      ),
      target_id bigint NOT NULL,
      reason text NOT NULL,
      details text,
      safeguarding boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
      resolved_by bigint REFERENCES users (id),
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  // The admin queue (open first, newest first) and the reports about one target.
  yield* sql`CREATE INDEX member_reports_queue ON member_reports (tenant_id, status, id DESC)`
  yield* sql`CREATE INDEX member_reports_target ON member_reports (tenant_id, target_type, target_id)`
})
