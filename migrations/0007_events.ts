import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Polls exist so that an event's `poll_ids` means something (decisions D8).
  yield* sql`
    CREATE TABLE polls (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      question text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX polls_user ON polls (user_id)`
  yield* sql`
    CREATE TABLE poll_options (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      poll_id bigint NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
      label text NOT NULL,
      position int NOT NULL,
      UNIQUE (poll_id, position)
    )`
  yield* sql`
    CREATE TABLE poll_votes (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      poll_id bigint NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
      option_id bigint NOT NULL REFERENCES poll_options (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (poll_id, user_id)
    )`
  yield* sql`CREATE INDEX poll_votes_option ON poll_votes (option_id)`

  // A named series without a recurrence rule (spec: POST /v2/events/series).
  yield* sql`
    CREATE TABLE event_series (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      title text NOT NULL,
      description text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`
    CREATE TABLE events (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      title text NOT NULL,
      description text NOT NULL,
      start_time timestamptz NOT NULL,
      end_time timestamptz CHECK (end_time IS NULL OR end_time > start_time),
      location text,
      latitude double precision,
      longitude double precision,
      max_attendees int CHECK (max_attendees IS NULL OR max_attendees > 0),
      is_online boolean NOT NULL DEFAULT false,
      online_link text,
      video_url text,
      allow_remote_attendance boolean NOT NULL DEFAULT false,
      image_url text,
      cover_image text,
      category_id bigint REFERENCES categories (id) ON DELETE SET NULL,
      group_id bigint,
      federated_visibility text NOT NULL DEFAULT 'none',
      members_only boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled')),
      cancel_reason text,
      cancelled_at timestamptz,
      is_recurring_template boolean NOT NULL DEFAULT false,
      parent_event_id bigint REFERENCES events (id) ON DELETE SET NULL,
      occurrence_date date,
      series_id bigint REFERENCES event_series (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Upcoming (ascending) and past (descending, the same index read backwards) lists, by start then id.
  yield* sql`CREATE INDEX events_tenant_start ON events (tenant_id, start_time, id)`
  // The upcoming list filters on "ends now or later" (end, or start without an end); without this index a community
  // with many past events scans them all (50,000 past events: 37 ms → 0.3 ms for the first page).
  yield* sql`CREATE INDEX events_tenant_ends ON events (tenant_id, (COALESCE(end_time, start_time)))`
  yield* sql`CREATE INDEX events_user ON events (user_id, start_time)`
  yield* sql`CREATE INDEX events_parent ON events (parent_event_id, start_time) WHERE parent_event_id IS NOT NULL`
  yield* sql`CREATE INDEX events_series ON events (series_id) WHERE series_id IS NOT NULL`
  yield* sql`CREATE INDEX events_category ON events (category_id)`

  yield* sql`
    CREATE TABLE event_polls (
      event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      poll_id bigint NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
      PRIMARY KEY (event_id, poll_id)
    )`

  // One RSVP per user per event. Written only by the event's cluster entity (capacity is decided there).
  yield* sql`
    CREATE TABLE event_rsvps (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      status text NOT NULL CHECK (status IN ('going', 'interested', 'not_going', 'declined', 'invited', 'attended')),
      checked_in_at timestamptz,
      checkin_transaction_id bigint REFERENCES ledger_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (event_id, user_id)
    )`
  yield* sql`CREATE INDEX event_rsvps_event_status ON event_rsvps (event_id, status)`
  yield* sql`CREATE INDEX event_rsvps_user ON event_rsvps (user_id, event_id)`

  // Waiting members of a full event; the row goes when they leave or are promoted. Order = id order (the entity
  // writes them one at a time).
  yield* sql`
    CREATE TABLE event_waitlist (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting')),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (event_id, user_id)
    )`
  yield* sql`CREATE INDEX event_waitlist_event ON event_waitlist (event_id, id)`
  yield* sql`CREATE INDEX event_waitlist_user ON event_waitlist (user_id)`

  // Members' own reminders (decisions D8); scheduled delivery comes with the reminders work.
  yield* sql`
    CREATE TABLE event_reminders (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id),
      offset_minutes int NOT NULL CHECK (offset_minutes IN (60, 1440, 10080)),
      channel text NOT NULL CHECK (channel IN ('platform', 'email', 'both')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled', 'failed')),
      scheduled_for timestamptz NOT NULL,
      claimed_at timestamptz,
      sent_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (event_id, user_id, offset_minutes)
    )`
  yield* sql`CREATE INDEX event_reminders_due ON event_reminders (scheduled_for) WHERE status = 'pending'`
  yield* sql`CREATE INDEX event_reminders_user ON event_reminders (event_id, user_id)`
})
