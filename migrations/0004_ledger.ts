import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ledger_accounts (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      kind text NOT NULL CHECK (kind IN ('member', 'organisation', 'treasury')),
      owner_id bigint,
      balance numeric(12, 2) NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'treasury') = (owner_id IS NULL))
    )`
  yield* sql`CREATE UNIQUE INDEX ledger_accounts_owner ON ledger_accounts (tenant_id, kind, owner_id)
             WHERE owner_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX ledger_accounts_treasury ON ledger_accounts (tenant_id) WHERE kind = 'treasury'`

  yield* sql`
    CREATE TABLE ledger_transactions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      type text NOT NULL,
      description text NOT NULL DEFAULT '',
      amount numeric(12, 2) NOT NULL CHECK (amount > 0),
      sender_id bigint,
      recipient_id bigint,
      listing_id bigint,
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      created_by bigint,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, idempotency_key)
    )`
  yield* sql`
    CREATE TABLE ledger_entries (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
      account_id bigint NOT NULL REFERENCES ledger_accounts (id),
      amount numeric(12, 2) NOT NULL CHECK (amount <> 0),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX ledger_entries_account ON ledger_entries (account_id, transaction_id DESC)`
  yield* sql`CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id)`

  // History is append-only: corrections are new, compensating transactions.
  yield* sql`
    CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger history is append-only (% on %)', TG_OP, TG_TABLE_NAME USING ERRCODE = 'check_violation';
    END $$`
  yield* sql`CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
             FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`
  yield* sql`CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
             FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`

  // Every transaction's entries sum to zero, checked when the database transaction commits.
  yield* sql`
    CREATE FUNCTION ledger_check_zero_sum() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE total numeric;
    BEGIN
      SELECT sum(amount) INTO total FROM ledger_entries WHERE transaction_id = NEW.transaction_id;
      IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance (sum %)', NEW.transaction_id, total
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END $$`
  yield* sql`CREATE CONSTRAINT TRIGGER ledger_entries_zero_sum AFTER INSERT ON ledger_entries
             DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_zero_sum()`

  // Members may not go below zero unless their community allows negative balances; the treasury always may
  // (it issues credits), organisations never.
  yield* sql`
    CREATE FUNCTION ledger_check_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.balance < 0 AND NEW.kind <> 'treasury' AND NOT (
        NEW.kind = 'member' AND coalesce(
          (SELECT (settings->>'allow_negative_balance')::boolean FROM tenants WHERE id = NEW.tenant_id), false)
      ) THEN
        RAISE EXCEPTION 'ledger account % would go negative (%)', NEW.id, NEW.balance USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$`
  yield* sql`CREATE TRIGGER ledger_accounts_balance BEFORE INSERT OR UPDATE OF balance ON ledger_accounts
             FOR EACH ROW EXECUTE FUNCTION ledger_check_balance()`
})
