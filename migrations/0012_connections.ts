import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Connections between members (decisions D14, D14a): a request is `pending` until its target accepts it; a
 * declined request is deleted, so the requester may ask again. One connection per pair, whichever way it was asked.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE connections (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      requester_id bigint NOT NULL REFERENCES users (id),
      target_id bigint NOT NULL REFERENCES users (id),
      status text NOT NULL CHECK (status IN ('pending', 'accepted')),
      created_at timestamptz NOT NULL DEFAULT now(),
      accepted_at timestamptz,
      CHECK (requester_id <> target_id)
    )`
  // The pair's one connection: a second request in either direction is a unique violation (409 ALREADY_EXISTS).
  yield* sql`
    CREATE UNIQUE INDEX connections_pair
    ON connections (tenant_id, LEAST(requester_id, target_id), GREATEST(requester_id, target_id))`
  // A member's connections by status, newest first, from either side.
  yield* sql`CREATE INDEX connections_requester ON connections (tenant_id, requester_id, status, id DESC)`
  yield* sql`CREATE INDEX connections_target ON connections (tenant_id, target_id, status, id DESC)`
})
