import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Federation (decisions D13, D13a): the switches, partners, inbound API keys and their nonces, outbound webhook
 * deliveries with every attempt, received webhooks, federated transactions (clearing accounts in the ledger),
 * federated reviews and messages, and the records partners share with us.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // The platform's kill switch: one row; `enabled` false (the default) = federation off everywhere.
  yield* sql`
    CREATE TABLE federation_platform (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      enabled boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`INSERT INTO federation_platform DEFAULT VALUES`

  // Per community: the super-admin's whitelist and the tenant admin's per-feature toggles (D13 names).
  yield* sql`
    CREATE TABLE federation_tenant_settings (
      tenant_id bigint PRIMARY KEY REFERENCES tenants (id),
      whitelisted boolean NOT NULL DEFAULT false,
      toggles jsonb NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`
    CREATE TABLE federation_partners (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      name text NOT NULL,
      protocol_type text NOT NULL CHECK (protocol_type IN ('native', 'komunitin', 'credit_commons', 'timeoverflow')),
      base_url text NOT NULL,
      webhook_url text,
      -- AES-256-GCM box of the credentials object (SecretBox); which keys are set is kept in the clear.
      credentials text,
      credential_keys text[] NOT NULL DEFAULT '{}',
      settings jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'suspended', 'failed')),
      -- The outbound breaker: consecutive failed attempts, and until when it stays open.
      consecutive_failures integer NOT NULL DEFAULT 0,
      breaker_open_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  yield* sql`CREATE INDEX federation_partners_tenant ON federation_partners (tenant_id, id DESC) WHERE deleted_at IS NULL`

  yield* sql`
    CREATE TABLE federation_api_keys (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint REFERENCES federation_partners (id),
      name text NOT NULL,
      key_prefix text NOT NULL UNIQUE,
      key_hash text NOT NULL UNIQUE,
      scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
      rate_limit_per_minute integer NOT NULL DEFAULT 60 CHECK (rate_limit_per_minute BETWEEN 1 AND 10000),
      -- AES-256-GCM box of the signing secret, when the key signs.
      signing_secret text,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_by bigint REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX federation_api_keys_tenant ON federation_api_keys (tenant_id, id DESC)`

  // Single-use HMAC nonces when no Redis is configured (Redis keeps them with a TTL otherwise).
  yield* sql`
    CREATE TABLE federation_nonces (
      key_id bigint NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (key_id, nonce)
    )`
  yield* sql`CREATE INDEX federation_nonces_expiry ON federation_nonces (expires_at)`

  // One outbound webhook to one partner; `source_key` names the outbox event it came from (at-least-once safe).
  yield* sql`
    CREATE TABLE federation_deliveries (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      webhook_id uuid NOT NULL UNIQUE,
      event text NOT NULL,
      body jsonb NOT NULL,
      source_key text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'retrying', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      -- Set while one sender holds the row (a worker's claim or an admin retry): nobody else sends it meanwhile.
      claimed_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      UNIQUE (partner_id, source_key)
    )`
  // The worker's queue per partner (due first), and the admin's list.
  yield* sql`CREATE INDEX federation_deliveries_due ON federation_deliveries (partner_id, next_attempt_at, id)
             WHERE status IN ('pending', 'retrying')`
  yield* sql`CREATE INDEX federation_deliveries_partner ON federation_deliveries (tenant_id, partner_id, id DESC)`

  yield* sql`
    CREATE TABLE federation_delivery_attempts (
      id bigserial PRIMARY KEY,
      delivery_id bigint NOT NULL REFERENCES federation_deliveries (id) ON DELETE CASCADE,
      attempted_at timestamptz NOT NULL DEFAULT now(),
      status_code integer,
      latency_ms integer NOT NULL,
      error text
    )`
  yield* sql`CREATE INDEX federation_delivery_attempts_delivery ON federation_delivery_attempts (delivery_id, id)`

  // Webhooks partners sent us, deduplicated per key on their id.
  yield* sql`
    CREATE TABLE federation_webhook_receipts (
      key_id bigint NOT NULL REFERENCES federation_api_keys (id),
      webhook_id text NOT NULL,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event text NOT NULL,
      handled boolean NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (key_id, webhook_id)
    )`

  // Partners' clearing accounts: one ledger account per partner, allowed below zero down to its credit limit
  // (checked by the Ledger entity, which knows the limit of each move).
  yield* sql`ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check`
  yield* sql`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
             CHECK (kind IN ('member', 'organisation', 'treasury', 'partner'))`
  yield* sql`
    CREATE OR REPLACE FUNCTION ledger_check_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.balance < 0 AND NEW.kind NOT IN ('treasury', 'partner') AND NOT (
        NEW.kind = 'member' AND coalesce(
          (SELECT (settings->>'allow_negative_balance')::boolean FROM tenants WHERE id = NEW.tenant_id), false)
      ) THEN
        RAISE EXCEPTION 'ledger account % would go negative (%)', NEW.id, NEW.balance USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$`

  // Credits a partner sent to a member (and their refund), idempotent per partner on the partner's id.
  yield* sql`
    CREATE TABLE federation_transactions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      external_id text NOT NULL,
      request_hash text NOT NULL,
      transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
      recipient_id bigint NOT NULL REFERENCES users (id),
      amount numeric(12, 2) NOT NULL,
      description text NOT NULL DEFAULT '',
      sender_name text NOT NULL,
      sender_external_id text NOT NULL,
      refund_transaction_id bigint REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (partner_id, external_id)
    )`
  yield* sql`CREATE INDEX federation_transactions_partner ON federation_transactions (tenant_id, partner_id, id DESC)`

  // Reviews partners' members write about ours: no local reviewer, the partner and its member's name instead.
  yield* sql`ALTER TABLE reviews ALTER COLUMN reviewer_id DROP NOT NULL`
  yield* sql`ALTER TABLE reviews ADD COLUMN is_federated boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE reviews ADD COLUMN federation_partner_id bigint REFERENCES federation_partners (id)`
  yield* sql`ALTER TABLE reviews ADD COLUMN reviewer_name text`
  yield* sql`ALTER TABLE reviews ADD COLUMN reviewer_external_id text`
  yield* sql`ALTER TABLE reviews ADD CONSTRAINT reviews_reviewer CHECK (
               (is_federated AND reviewer_id IS NULL AND federation_partner_id IS NOT NULL
                AND reviewer_external_id IS NOT NULL)
               OR (NOT is_federated AND reviewer_id IS NOT NULL))`
  yield* sql`CREATE UNIQUE INDEX reviews_federated_reviewer
             ON reviews (tenant_id, federation_partner_id, reviewer_external_id, target_type, target_id)
             WHERE is_federated`

  // Messages partners' members send to ours.
  yield* sql`
    CREATE TABLE federation_messages (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      recipient_id bigint NOT NULL REFERENCES users (id),
      subject text,
      body text NOT NULL,
      sender_name text NOT NULL,
      sender_external_id text NOT NULL,
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX federation_messages_recipient ON federation_messages (tenant_id, recipient_id, id DESC)`

  // Listings, events, groups and reviews a partner shared by webhook (D13a "Ingest"), keyed by partner and remote id.
  yield* sql`
    CREATE TABLE federated_records (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      kind text NOT NULL CHECK (kind IN ('listing', 'event', 'group', 'review')),
      remote_id text NOT NULL,
      remote_member_id text,
      data jsonb NOT NULL,
      -- The occurred_at of the webhook that last wrote it: an older update arriving late (a retry) is ignored.
      occurred_at timestamptz,
      received_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (partner_id, kind, remote_id)
    )`
  // Members' browse lists per kind, newest first; a partner member's records for the opt-out retraction.
  yield* sql`CREATE INDEX federated_records_browse ON federated_records (tenant_id, kind, id DESC)`
  yield* sql`CREATE INDEX federated_records_member ON federated_records (partner_id, remote_member_id)
             WHERE remote_member_id IS NOT NULL`

  // Partners' reads (/api/v1/federation/*): opted-in members (the member list, and the owner filter of listings and
  // groups), shared upcoming events in start order, public active groups.
  yield* sql`CREATE INDEX users_federated ON users (tenant_id, id DESC)
             WHERE federation_opt_in AND status = 'active' AND is_approved AND deleted_at IS NULL`
  yield* sql`CREATE INDEX events_federated ON events (tenant_id, start_time, id)
             WHERE federated_visibility <> 'none' AND status = 'active' AND NOT is_recurring_template`
  yield* sql`CREATE INDEX groups_federated ON groups (tenant_id, id DESC)
             WHERE deleted_at IS NULL AND visibility = 'public' AND status = 'active'`
})
