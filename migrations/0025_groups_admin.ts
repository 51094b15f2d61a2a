import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Groups administration (decisions D17 "Groups admin"): the featured set, and indexes for the admin list's filters
 * and the analytics' windows. `featured_at` null = not featured; the featured list reads them in that order.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE groups ADD COLUMN featured_at timestamptz`
  // The featured list (and `?featured=true`), in featured order.
  yield* sql`CREATE INDEX groups_featured ON groups (tenant_id, featured_at, id)
             WHERE featured_at IS NOT NULL AND deleted_at IS NULL`
  // `?owner_id=`, newest first (status has `groups_status` from 0020, type `groups_type` from 0013).
  yield* sql`CREATE INDEX groups_owner ON groups (tenant_id, owner_id, id DESC) WHERE deleted_at IS NULL`
  // Analytics: new groups and new memberships per month, chatroom messages of the last 30 days.
  yield* sql`CREATE INDEX groups_tenant_created ON groups (tenant_id, created_at) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX group_members_tenant_joined ON group_members (tenant_id, joined_at)`
  yield* sql`CREATE INDEX group_messages_tenant_created ON group_messages (tenant_id, created_at) INCLUDE (group_id)`
  // Analytics: feed posts in groups of the last 30 days (read by the feed, for the groups' analytics port).
  yield* sql`CREATE INDEX feed_posts_group_created ON feed_posts (tenant_id, created_at) INCLUDE (group_id)
             WHERE group_id IS NOT NULL AND deleted_at IS NULL`
})
