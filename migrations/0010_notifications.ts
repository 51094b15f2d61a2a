import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The notifications feature: bells, digest settings, mutes, the e-mail queue, push subscriptions and their log. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // A bell. `source_key` names what raised it (an outbox event id and the delivery's type), so a redelivered event
  // inserts nothing twice; `group_key` is D9's `type:link`, kept as a column for the grouped inbox.
  yield* sql`
    CREATE TABLE notifications (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      type text NOT NULL,
      category text NOT NULL,
      title text NOT NULL,
      message text NOT NULL,
      link text,
      actor_id bigint REFERENCES users (id),
      group_key text NOT NULL,
      source_key text,
      is_read boolean NOT NULL DEFAULT false,
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX notifications_inbox ON notifications (tenant_id, user_id, id DESC)`
  yield* sql`CREATE INDEX notifications_category ON notifications (tenant_id, user_id, category, id DESC)`
  yield* sql`CREATE INDEX notifications_unread ON notifications (tenant_id, user_id, category) WHERE NOT is_read`
  yield* sql`CREATE INDEX notifications_dedupe ON notifications (tenant_id, user_id, type, group_key, created_at)`
  yield* sql`CREATE UNIQUE INDEX notifications_source ON notifications (user_id, source_key) WHERE source_key IS NOT NULL`

  // Digest frequency per context (D12); `context_id` 0 stands for "none" (global) so the key is a plain unique index.
  yield* sql`
    CREATE TABLE notification_settings (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      context_type text NOT NULL CHECK (context_type IN ('global', 'group', 'thread')),
      context_id bigint NOT NULL DEFAULT 0,
      frequency text NOT NULL CHECK (frequency IN ('instant', 'daily', 'monthly', 'off')),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id, context_type, context_id)
    )`

  yield* sql`
    CREATE TABLE user_mutes (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      muted_user_id bigint NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id, muted_user_id)
    )`

  // The spec's e-mail queue: one row per notification e-mail; instant rows are sent by the mailer within seconds,
  // daily and monthly rows wait for their digest. `subject`/`email_body`/`email_html` are rendered at queue time in
  // the recipient's language; `next_attempt_at` spaces the retries of a failing SMTP server.
  yield* sql`
    CREATE TABLE notification_email_queue (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      notification_id bigint REFERENCES notifications (id) ON DELETE SET NULL,
      activity_type text NOT NULL,
      category text NOT NULL,
      content_snippet text NOT NULL,
      subject text NOT NULL,
      email_body text NOT NULL,
      link text,
      frequency text NOT NULL CHECK (frequency IN ('instant', 'daily', 'monthly')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      source_key text,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      sent_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX notification_email_queue_due ON notification_email_queue (frequency, next_attempt_at)
    WHERE status = 'pending'`
  yield* sql`CREATE INDEX notification_email_queue_user ON notification_email_queue (tenant_id, user_id, status)`
  yield* sql`CREATE INDEX notification_email_queue_created ON notification_email_queue (created_at)`
  yield* sql`CREATE UNIQUE INDEX notification_email_queue_source ON notification_email_queue (user_id, source_key)
    WHERE source_key IS NOT NULL`

  // Web (`endpoint` + keys) and mobile (`endpoint` = the device token) push subscriptions, one per (user, endpoint).
  yield* sql`
    CREATE TABLE push_subscriptions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      kind text NOT NULL CHECK (kind IN ('web', 'fcm', 'apns')),
      endpoint text NOT NULL,
      p256dh text,
      auth text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX push_subscriptions_endpoint ON push_subscriptions (tenant_id, user_id, endpoint)`

  // What push sent, for its own 60-second duplicate suppression (dispatch rule 4) across runners.
  yield* sql`
    CREATE TABLE push_log (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      group_key text NOT NULL,
      sent_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX push_log_recent ON push_log (tenant_id, user_id, group_key, sent_at)`

  // Keys the service signs with (the unsubscribe tokens' HMAC key): made once, shared by every runner.
  yield* sql`
    CREATE TABLE signing_keys (
      name text PRIMARY KEY,
      secret bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
