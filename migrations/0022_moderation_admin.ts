import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Moderation in the admin catalogue (decisions D15, D17 "Moderation"): reviews get their moderation state, member
 * reports what resolving them did, and the admin lists and stats of posts, comments, reviews and reports their
 * indexes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // A flagged review stays public until it is hidden; a hidden one is in no member's list, count or average.
  yield* sql`
    ALTER TABLE reviews
      ADD COLUMN is_flagged boolean NOT NULL DEFAULT false,
      ADD COLUMN is_hidden boolean NOT NULL DEFAULT false`
  // What resolving a report did, and the admin's note on resolving or dismissing it.
  yield* sql`
    ALTER TABLE member_reports
      ADD COLUMN resolution_action text CHECK (resolution_action IN ('none', 'hide_content', 'suspend_member')),
      ADD COLUMN resolution_note text`

  // Admin lists, newest first, and their filters.
  yield* sql`CREATE INDEX feed_posts_author ON feed_posts (tenant_id, author_id, id DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX feed_posts_hidden ON feed_posts (tenant_id, id DESC) WHERE is_hidden AND deleted_at IS NULL`
  yield* sql`CREATE INDEX feed_posts_created ON feed_posts (tenant_id, created_at) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX feed_comments_admin ON feed_comments (tenant_id, id DESC) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE INDEX feed_comments_author ON feed_comments (tenant_id, author_id, id DESC) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE INDEX feed_comments_hidden ON feed_comments (tenant_id, id DESC) WHERE is_hidden AND deleted_at IS NULL`
  yield* sql`CREATE INDEX feed_comments_created ON feed_comments (tenant_id, created_at) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX reviews_admin ON reviews (tenant_id, id DESC)`
  yield* sql`CREATE INDEX reviews_reviewer ON reviews (tenant_id, reviewer_id, id DESC)`
  yield* sql`CREATE INDEX reviews_flagged ON reviews (tenant_id, id DESC) WHERE is_flagged`
  yield* sql`CREATE INDEX member_reports_admin ON member_reports (tenant_id, id DESC)`
  yield* sql`CREATE INDEX member_reports_reporter ON member_reports (tenant_id, reporter_id, id DESC)`
  yield* sql`
    CREATE INDEX member_reports_safeguarding ON member_reports (tenant_id, id DESC) WHERE safeguarding`
})
