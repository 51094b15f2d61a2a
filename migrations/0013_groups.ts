import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Groups (decisions D14, D14a): group types (managed by the admin catalogue later), groups, their memberships and
 * their chatroom.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE group_types (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX group_types_tenant_name ON group_types (tenant_id, lower(name))`

  yield* sql`
    CREATE TABLE groups (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      owner_id bigint NOT NULL REFERENCES users (id),
      type_id bigint REFERENCES group_types (id),
      name text NOT NULL,
      description text NOT NULL,
      visibility text NOT NULL CHECK (visibility IN ('public', 'private')),
      location text,
      status text NOT NULL CHECK (status IN ('pending_review', 'active', 'dormant', 'archived', 'rejected')),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // The list, newest first, optionally of one type; deleted groups are gone for everyone.
  yield* sql`CREATE INDEX groups_list ON groups (tenant_id, id DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX groups_type ON groups (tenant_id, type_id, id DESC) WHERE deleted_at IS NULL`

  yield* sql`
    CREATE TABLE group_members (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      group_id bigint NOT NULL REFERENCES groups (id),
      user_id bigint NOT NULL REFERENCES users (id),
      role text NOT NULL CHECK (role IN ('owner', 'organiser', 'member')),
      status text NOT NULL CHECK (status IN ('pending', 'active', 'banned')),
      joined_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, user_id)
    )`
  // A group's members (list, counts, fan-out to organisers or participants) and a member's groups.
  yield* sql`CREATE INDEX group_members_group ON group_members (tenant_id, group_id, status, user_id)`
  yield* sql`CREATE INDEX group_members_user ON group_members (tenant_id, user_id)`

  yield* sql`
    CREATE TABLE group_messages (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      group_id bigint NOT NULL REFERENCES groups (id),
      sender_id bigint NOT NULL REFERENCES users (id),
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX group_messages_group ON group_messages (tenant_id, group_id, id DESC)`
})
