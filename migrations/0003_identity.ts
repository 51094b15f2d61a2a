import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      email text NOT NULL,
      password_hash text,
      first_name text NOT NULL,
      last_name text NOT NULL,
      bio text,
      avatar_url text,
      location text,
      role text NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'broker', 'coordinator', 'admin')),
      is_super_admin boolean NOT NULL DEFAULT false,
      is_god boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'suspended', 'banned')),
      is_approved boolean NOT NULL DEFAULT false,
      preferred_language text NOT NULL DEFAULT 'en',
      federation_opt_in boolean NOT NULL DEFAULT false,
      notification_preferences jsonb NOT NULL DEFAULT '{}',
      two_factor_secret text,
      deleted_at timestamptz,
      last_login_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX users_tenant_email_key ON users (tenant_id, lower(email))`
  yield* sql`CREATE INDEX users_tenant_role ON users (tenant_id, role) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX users_tenant_status ON users (tenant_id, status, id)`

  // A session is one login (a token family): refresh rotation and logout act on the whole family.
  yield* sql`
    CREATE TABLE auth_sessions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      kind text NOT NULL DEFAULT 'login' CHECK (kind IN ('login', 'impersonation')),
      impersonator_id bigint REFERENCES users (id),
      cookie_token_hash text UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`
  yield* sql`CREATE INDEX auth_sessions_user ON auth_sessions (user_id) WHERE revoked_at IS NULL`
  yield* sql`
    CREATE TABLE access_tokens (
      token_hash text PRIMARY KEY,
      session_id bigint NOT NULL REFERENCES auth_sessions (id),
      expires_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX access_tokens_session ON access_tokens (session_id)`
  yield* sql`
    CREATE TABLE refresh_tokens (
      token_hash text PRIMARY KEY,
      session_id bigint NOT NULL REFERENCES auth_sessions (id),
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz
    )`
  yield* sql`CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id)`

  yield* sql`
    CREATE TABLE user_consents (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      consent_type text NOT NULL,
      granted boolean NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX user_consents_user ON user_consents (user_id, created_at)`

  // E-mails waiting for the notifications feature to deliver them.
  yield* sql`
    CREATE TABLE mail_outbox (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint REFERENCES users (id),
      to_email text NOT NULL,
      template text NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX mail_outbox_pending ON mail_outbox (status, id)`
  yield* sql`
    CREATE TABLE password_reset_tokens (
      token_hash text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`
})
