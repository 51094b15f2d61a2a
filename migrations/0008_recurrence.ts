import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // One rule per recurring template (spec "Recurrence rule"); it goes with its template.
  yield* sql`
    CREATE TABLE event_recurrence_rules (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event_id bigint NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
      frequency text NOT NULL CHECK (frequency IN ('daily', 'weekly', 'monthly', 'yearly', 'custom')),
      interval_value int NOT NULL DEFAULT 1 CHECK (interval_value >= 1),
      days_of_week text[],
      day_of_month int CHECK (day_of_month BETWEEN 1 AND 31),
      rrule text,
      ends_type text NOT NULL CHECK (ends_type IN ('after_count', 'on_date')),
      ends_after_count int CHECK (ends_after_count BETWEEN 1 AND 52),
      ends_on_date date,
      timezone text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Reminder deliveries: one row per (reminder, recipient) — the idempotency record of a delivery. User reminders
  // name their event_reminders row; automatic ones (24 h, 1 h) name the event, the kind and the recipient.
  yield* sql`
    CREATE TABLE event_reminder_deliveries (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      reminder_id bigint REFERENCES event_reminders (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('user', 'auto_24h', 'auto_1h')),
      status text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'sent', 'failed')),
      claimed_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX event_reminder_deliveries_user ON event_reminder_deliveries (reminder_id)
             WHERE kind = 'user'`
  yield* sql`CREATE UNIQUE INDEX event_reminder_deliveries_auto ON event_reminder_deliveries (event_id, kind, user_id)
             WHERE kind <> 'user'`
  yield* sql`CREATE INDEX event_reminder_deliveries_stale ON event_reminder_deliveries (claimed_at)
             WHERE status = 'claimed'`
  // The automatic reminder scans: events starting in a window, any tenant.
  yield* sql`CREATE INDEX events_start ON events (start_time) WHERE status = 'active'`
})
