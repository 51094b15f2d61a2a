import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The wallet is the organisation's ledger account (kind 'organisation'); no balance column here, so the ledger
  // stays the one place credits live.
  yield* sql`
    CREATE TABLE vol_organisations (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      name text NOT NULL,
      slug text NOT NULL,
      description text NOT NULL,
      contact_email text NOT NULL,
      website text,
      logo_url text,
      location text,
      status text NOT NULL CHECK (status IN ('pending', 'active', 'approved', 'suspended')),
      auto_pay_enabled boolean NOT NULL DEFAULT false,
      dlp_user_id bigint REFERENCES users (id),
      deputy_dlp_user_id bigint REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX vol_organisations_tenant_name ON vol_organisations (tenant_id, lower(name))`
  yield* sql`CREATE UNIQUE INDEX vol_organisations_tenant_slug ON vol_organisations (tenant_id, slug)`
  // Public directory: visible organisations, newest first (cursor on id).
  yield* sql`CREATE INDEX vol_organisations_directory ON vol_organisations (tenant_id, id DESC)
             WHERE status IN ('active', 'approved')`
  // Admin list (every status) and its status filter.
  yield* sql`CREATE INDEX vol_organisations_tenant_status ON vol_organisations (tenant_id, status, id DESC)`
  yield* sql`CREATE INDEX vol_organisations_user ON vol_organisations (user_id)`

  yield* sql`
    CREATE TABLE vol_organisation_members (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      organisation_id bigint NOT NULL REFERENCES vol_organisations (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      status text NOT NULL CHECK (status IN ('active', 'pending', 'invited', 'removed')),
      org_type text NOT NULL DEFAULT 'volunteer',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organisation_id, user_id, org_type)
    )`
  // "My organisations" and the dashboard access check start from the user.
  yield* sql`CREATE INDEX vol_organisation_members_user ON vol_organisation_members (user_id, org_type, status)`

  yield* sql`
    CREATE TABLE vol_opportunities (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      organisation_id bigint NOT NULL REFERENCES vol_organisations (id) ON DELETE CASCADE,
      created_by bigint NOT NULL REFERENCES users (id),
      title text NOT NULL,
      description text NOT NULL,
      location text,
      status text NOT NULL CHECK (status IN ('open', 'closed')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX vol_opportunities_public ON vol_opportunities (tenant_id, status, id DESC)`
  // Per-organisation counts and lists (opportunity_count counts the open ones).
  yield* sql`CREATE INDEX vol_opportunities_organisation ON vol_opportunities (organisation_id, status, id DESC)`

  // organisation_id is copied from the opportunity so that per-organisation aggregates need no join.
  yield* sql`
    CREATE TABLE vol_applications (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      opportunity_id bigint NOT NULL REFERENCES vol_opportunities (id) ON DELETE CASCADE,
      organisation_id bigint NOT NULL REFERENCES vol_organisations (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      message text,
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
      reviewed_by bigint REFERENCES users (id),
      reviewed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (opportunity_id, user_id)
    )`
  yield* sql`CREATE INDEX vol_applications_organisation ON vol_applications (organisation_id, status, user_id)`
  yield* sql`CREATE INDEX vol_applications_organisation_id ON vol_applications (organisation_id, id DESC)`
  // The dashboard's status-filtered list, newest first, stays fast when a status is rare.
  yield* sql`CREATE INDEX vol_applications_organisation_status_id
             ON vol_applications (organisation_id, status, id DESC)`
  yield* sql`CREATE INDEX vol_applications_user ON vol_applications (user_id, id DESC)`

  yield* sql`
    CREATE TABLE vol_hours (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      organisation_id bigint NOT NULL REFERENCES vol_organisations (id) ON DELETE CASCADE,
      opportunity_id bigint REFERENCES vol_opportunities (id) ON DELETE SET NULL,
      user_id bigint NOT NULL REFERENCES users (id),
      date date NOT NULL,
      hours numeric(5, 2) NOT NULL CHECK (hours >= 0.25 AND hours <= 24),
      description text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
      reviewed_by bigint REFERENCES users (id),
      reviewed_at timestamptz,
      payment_status text NOT NULL DEFAULT 'none'
        CHECK (payment_status IN ('none', 'pending', 'paid', 'insufficient_balance')),
      transaction_id bigint REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX vol_hours_organisation ON vol_hours (organisation_id, status, id DESC)`
  // Approved hours per volunteer of one organisation (dashboard volunteers list).
  yield* sql`CREATE INDEX vol_hours_organisation_status_user ON vol_hours (organisation_id, status, user_id)`
  yield* sql`CREATE INDEX vol_hours_user ON vol_hours (user_id, id DESC)`

  yield* sql`
    CREATE TABLE reviews (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      reviewer_id bigint NOT NULL REFERENCES users (id),
      target_type text NOT NULL CHECK (target_type IN ('organization', 'user')),
      target_id bigint NOT NULL,
      rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
      comment text NOT NULL DEFAULT '',
      approved boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, reviewer_id, target_type, target_id)
    )`
  // A target's reviews, newest first, and its count and average.
  yield* sql`CREATE INDEX reviews_target ON reviews (tenant_id, target_type, target_id, id DESC)`
})
