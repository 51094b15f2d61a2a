import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Matching (decisions D17 "Matching"): members' profiles, the community's settings, computed matches. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // What a member says about themself for matching; location comes from the member's profile (identity).
  yield* sql`
    CREATE TABLE matching_profiles (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      skills jsonb NOT NULL DEFAULT '[]',
      availability jsonb NOT NULL DEFAULT '{}',
      categories jsonb NOT NULL DEFAULT '[]',
      max_distance_km numeric(6, 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id)
    )`

  // The settings beyond the weights (those are the ranking area `matching` of the configuration documents).
  yield* sql`
    CREATE TABLE matching_settings (
      tenant_id bigint PRIMARY KEY REFERENCES tenants (id),
      min_score numeric(5, 4) NOT NULL CHECK (min_score >= 0 AND min_score <= 1),
      approval_required boolean NOT NULL,
      updated_by bigint REFERENCES users (id),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  // When a member's matches were last computed, and with which configuration (a change makes them stale).
  yield* sql`
    CREATE TABLE matching_computations (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      computed_at timestamptz NOT NULL,
      config_key text NOT NULL,
      PRIMARY KEY (tenant_id, user_id)
    )`

  yield* sql`
    CREATE TABLE matching_matches (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      target_type text NOT NULL CHECK (target_type IN ('listing', 'opportunity')),
      target_id bigint NOT NULL,
      score numeric(5, 4) NOT NULL CHECK (score >= 0 AND score <= 1),
      reasons jsonb NOT NULL DEFAULT '[]',
      title text NOT NULL,
      location text,
      category_id bigint,
      status text NOT NULL CHECK (status IN ('visible', 'pending', 'approved', 'rejected')),
      computed_at timestamptz NOT NULL,
      decided_by bigint REFERENCES users (id),
      decided_at timestamptz,
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, user_id, target_type, target_id)
    )`
  // A member's list (best first) and the recomputation of one member's rows.
  yield* sql`CREATE INDEX matching_matches_member ON matching_matches (tenant_id, user_id, status, score DESC)`
  // The approvals queue with its status filter, newest first, and the per-status counts.
  yield* sql`CREATE INDEX matching_matches_status ON matching_matches (tenant_id, status, id DESC)`
})
