import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Federation protocol adapters (decisions D16): each community's currency code, members' federation accounts,
 * Komunitin JSON:API transfers partners send us, the Credit Commons hash chain per partner with the relays on it,
 * and the transfers our members send to partners.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Set by the tenant admin; null = the default (tenant id in base 36, upper case, 0-padded to 4).
  yield* sql`ALTER TABLE federation_tenant_settings ADD COLUMN currency_code text`
  yield* sql`
    CREATE UNIQUE INDEX federation_tenant_settings_currency_code
    ON federation_tenant_settings (currency_code) WHERE currency_code IS NOT NULL`

  // A member's account as partners address it: a UUID made on first use; its code is CODE + the user id.
  yield* sql`
    CREATE TABLE federation_member_accounts (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      account_id uuid NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id)
    )`

  // Transfers a Komunitin partner posts to /api/v1/federation/{CODE}/transfers: its UUID is the transfer's id.
  yield* sql`
    CREATE TABLE federation_jsonapi_transfers (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      id uuid NOT NULL,
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      -- submitted: the ledger is crediting it (Komunitin's name for a transfer sent to its ledger).
      state text NOT NULL CHECK (state IN ('new', 'submitted', 'committed', 'deleted')),
      amount bigint NOT NULL CHECK (amount > 0),
      meta jsonb NOT NULL,
      payer_account_id uuid NOT NULL,
      payer_href text,
      payee_user_id bigint NOT NULL REFERENCES users (id),
      -- The payee's account UUID as the partner named it (federation_member_accounts never changes it).
      payee_account_id uuid NOT NULL,
      request_hash text NOT NULL,
      transaction_id bigint REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    )`
  yield* sql`
    CREATE INDEX federation_jsonapi_transfers_partner
    ON federation_jsonapi_transfers (tenant_id, partner_id, created_at DESC, id)`

  // The Credit Commons chain with one partner: both directions advance it; a new seed (digest) restarts it.
  yield* sql`
    CREATE TABLE federation_cc_chains (
      partner_id bigint PRIMARY KEY REFERENCES federation_partners (id),
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      seed_digest text NOT NULL,
      last_hash text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  // Every relay that advanced a chain, both directions: a relay resent with its preceding hash answers the same.
  yield* sql`
    CREATE TABLE federation_cc_relays (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      uuid uuid NOT NULL,
      direction text NOT NULL CHECK (direction IN ('in', 'out')),
      hash_before text NOT NULL,
      hash_after text NOT NULL,
      body jsonb NOT NULL,
      local_user_id bigint REFERENCES users (id),
      net_cents bigint NOT NULL,
      transaction_id bigint REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (partner_id, uuid)
    )`
  yield* sql`
    CREATE INDEX federation_cc_relays_account ON federation_cc_relays (tenant_id, partner_id, local_user_id)`

  // Transfers our members send to partners, each in the partner's protocol, with its compensation if it failed.
  yield* sql`
    CREATE TABLE federation_outbound_transfers (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      partner_id bigint NOT NULL REFERENCES federation_partners (id),
      user_id bigint NOT NULL REFERENCES users (id),
      uuid uuid NOT NULL UNIQUE,
      idempotency_key text,
      request_hash text NOT NULL,
      recipient text NOT NULL,
      amount numeric(12, 2) NOT NULL CHECK (amount > 0),
      description text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
      remote_id text,
      remote_amount text,
      transaction_id bigint REFERENCES ledger_transactions (id),
      reversal_transaction_id bigint REFERENCES ledger_transactions (id),
      failure jsonb,
      -- The call went out and no answer came: the partner may have acted on it (a failed row's reconciliation).
      outcome_unknown boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, user_id, idempotency_key)
    )`
  yield* sql`
    CREATE INDEX federation_outbound_transfers_member ON federation_outbound_transfers (tenant_id, user_id, id DESC)`
})
