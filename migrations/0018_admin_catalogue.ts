import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Running a community (decisions D15, D17): the audit trail of admin writes, modules next to features, per-tenant
 * configuration documents, the background jobs' runs, schedules and per-tenant switches, and what each runner's
 * caches hold (so that stats and clearing cover every runner).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Every admin write: who did what to which record, when (D15). Written after the write answered 2xx.
  yield* sql`
    CREATE TABLE admin_audit_log (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      actor_id bigint REFERENCES users (id),
      action text NOT NULL,
      target_type text NOT NULL,
      target_id text,
      details jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX admin_audit_log_latest ON admin_audit_log (tenant_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX admin_audit_log_actor ON admin_audit_log (tenant_id, actor_id, created_at DESC)`
  yield* sql`CREATE INDEX admin_audit_log_action ON admin_audit_log (tenant_id, action, created_at DESC)`
  yield* sql`CREATE INDEX admin_audit_log_target ON admin_audit_log (tenant_id, target_type, created_at DESC)`

  // Sub-capabilities (D17 modules) switched like features: sparse, defaults applied when read.
  yield* sql`ALTER TABLE tenants ADD COLUMN modules jsonb NOT NULL DEFAULT '{}'::jsonb`

  // One validated document per configuration area (ai, feed_algorithm, images, seo, languages, native_app,
  // algorithms) and tenant; absent = the area's defaults.
  yield* sql`
    CREATE TABLE tenant_config_documents (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      area text NOT NULL,
      document jsonb NOT NULL,
      updated_by bigint REFERENCES users (id),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, area)
    )`

  // Every run of a background job, per tenant it ran for (tenant_id null: work that belongs to no tenant).
  yield* sql`
    CREATE TABLE job_runs (
      id bigserial PRIMARY KEY,
      job_id text NOT NULL,
      tenant_id bigint REFERENCES tenants (id),
      trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'cli')),
      status text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      items integer NOT NULL DEFAULT 0,
      error text,
      requested_by bigint REFERENCES users (id)
    )`
  yield* sql`CREATE INDEX job_runs_tenant_latest ON job_runs (tenant_id, started_at DESC, id DESC)`
  yield* sql`CREATE INDEX job_runs_tenant_job ON job_runs (tenant_id, job_id, started_at DESC)`
  yield* sql`CREATE INDEX job_runs_job_latest ON job_runs (job_id, started_at DESC)`
  // One run of a job per tenant at a time, whichever runner started it.
  yield* sql`CREATE UNIQUE INDEX job_runs_one_running ON job_runs (job_id, tenant_id) WHERE status = 'running'`

  // The scheduler's record of each scheduled job: a super-admin's schedule override and the last tick.
  yield* sql`
    CREATE TABLE job_schedules (
      job_id text PRIMARY KEY,
      schedule text,
      updated_by bigint REFERENCES users (id),
      last_run_at timestamptz,
      last_finished_at timestamptz,
      last_status text CHECK (last_status IN ('running', 'succeeded', 'failed')),
      last_error text,
      next_run_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`

  // A tenant admin's switch per job (absent = enabled): a scheduled run skips the tenants that switched it off.
  yield* sql`
    CREATE TABLE job_tenant_settings (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      job_id text NOT NULL,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, job_id)
    )`

  // What each runner's caches hold per tenant, refreshed by the runner; rows of a runner not seen lately are ignored.
  yield* sql`
    CREATE TABLE cache_runner_stats (
      runner_id text NOT NULL,
      tenant_id bigint NOT NULL,
      cache text NOT NULL,
      entries integer NOT NULL,
      hits bigint NOT NULL,
      misses bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (runner_id, tenant_id, cache)
    )`
  yield* sql`CREATE INDEX cache_runner_stats_tenant ON cache_runner_stats (tenant_id, cache)`
})
