import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Direct messages (decisions D14). A conversation is a thread of two members; each member has a summary row of it
 * (`message_thread_members`: the other member, the last message, their unread count), kept up to date on every
 * send and read, so a member's conversations list is one index range scan however many threads they have.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // One row per pair of members: `user_low` < `user_high`, so the pair has one key whichever way a message goes.
  yield* sql`
    CREATE TABLE message_threads (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_low bigint NOT NULL REFERENCES users (id),
      user_high bigint NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (user_low < user_high)
    )`
  yield* sql`CREATE UNIQUE INDEX message_threads_pair ON message_threads (tenant_id, user_low, user_high)`

  yield* sql`
    CREATE TABLE messages (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      thread_id bigint NOT NULL REFERENCES message_threads (id),
      sender_id bigint NOT NULL REFERENCES users (id),
      recipient_id bigint NOT NULL REFERENCES users (id),
      subject text,
      body text NOT NULL,
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (sender_id <> recipient_id)
    )`
  // A thread, newest first (the thread route's cursor is the message id).
  yield* sql`CREATE INDEX messages_thread ON messages (tenant_id, thread_id, id DESC)`
  // The unread messages of a recipient in a thread, which a read marks.
  yield* sql`CREATE INDEX messages_unread ON messages (thread_id, recipient_id) WHERE read_at IS NULL`

  // Each member's view of a thread: written on send (both rows), reset on read.
  yield* sql`
    CREATE TABLE message_thread_members (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      thread_id bigint NOT NULL REFERENCES message_threads (id),
      user_id bigint NOT NULL REFERENCES users (id),
      other_user_id bigint NOT NULL REFERENCES users (id),
      last_message_id bigint NOT NULL REFERENCES messages (id),
      last_message_at timestamptz NOT NULL,
      unread_count integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
      PRIMARY KEY (thread_id, user_id)
    )`
  // A member's conversations, most recent first (cursor: last_message_id, unique per thread member).
  yield* sql`
    CREATE INDEX message_thread_members_inbox
    ON message_thread_members (tenant_id, user_id, last_message_id DESC)`
})
