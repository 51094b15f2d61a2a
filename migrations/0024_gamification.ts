import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Gamification (decisions D17): badges as data with their criteria, members' awards, time-boxed XP campaigns, and
 * the XP ledger the outbox subscriber writes (one row per member and domain event, keyed by the event so that a
 * redelivery adds nothing). Criteria progress is the ledger's sum of `quantity` per member and event type.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // The communities whose default catalogue was installed (once: a default badge an admin deleted stays deleted).
  yield* sql`
    CREATE TABLE gamification_tenants (
      tenant_id bigint PRIMARY KEY REFERENCES tenants (id),
      catalogue_installed_at timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`
    CREATE TABLE badges (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      key text NOT NULL,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      icon text,
      criteria_event text,
      criteria_threshold integer CHECK (criteria_threshold > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, key),
      CHECK ((criteria_event IS NULL) = (criteria_threshold IS NULL))
    )`
  // The recheck joins badges with criteria to the members' progress per event type.
  yield* sql`CREATE INDEX badges_criteria ON badges (tenant_id, criteria_event) WHERE criteria_event IS NOT NULL`

  yield* sql`
    CREATE TABLE user_badges (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      badge_id bigint NOT NULL REFERENCES badges (id) ON DELETE CASCADE,
      awarded_at timestamptz NOT NULL DEFAULT now(),
      awarded_by bigint REFERENCES users (id),
      source text NOT NULL CHECK (source IN ('criteria', 'manual', 'bulk')),
      PRIMARY KEY (badge_id, user_id)
    )`
  yield* sql`CREATE INDEX user_badges_member ON user_badges (tenant_id, user_id, awarded_at DESC)`

  yield* sql`
    CREATE TABLE gamification_campaigns (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      xp_multiplier double precision NOT NULL CHECK (xp_multiplier BETWEEN 1 AND 10),
      applies_to text[] NOT NULL,
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (ends_at > starts_at)
    )`
  yield* sql`CREATE INDEX gamification_campaigns_window ON gamification_campaigns (tenant_id, starts_at DESC, id DESC)`

  yield* sql`
    CREATE TABLE gamification_xp (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      event_type text NOT NULL,
      quantity numeric(12, 2) NOT NULL,
      points integer NOT NULL,
      multiplier double precision NOT NULL DEFAULT 1,
      source_key text NOT NULL,
      occurred_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, source_key)
    )`
  // A member's progress per event type (awarding, recheck) and their points (summary).
  yield* sql`CREATE INDEX gamification_xp_member ON gamification_xp (tenant_id, user_id, event_type)`
})
