import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // tx_id lets the publisher read only rows whose writers have all finished, so a slow transaction can never be
  // skipped by a cursor that already moved past a later id.
  yield* sql`
    CREATE TABLE outbox_events (
      id bigserial PRIMARY KEY,
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      tenant_id bigint REFERENCES tenants (id),
      event_type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX outbox_events_order ON outbox_events (tx_id, id)`
  yield* sql`
    CREATE TABLE outbox_cursors (
      subscriber text PRIMARY KEY,
      tx_id xid8 NOT NULL DEFAULT '0',
      event_id bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE outbox_dead_letters (
      subscriber text NOT NULL,
      event_id bigint NOT NULL REFERENCES outbox_events (id),
      attempts int NOT NULL,
      last_error text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (subscriber, event_id)
    )`
})
