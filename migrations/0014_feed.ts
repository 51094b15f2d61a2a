import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The community feed (decisions D14, D14a): posts (a member's, or an activity record the service writes when,
 * say, an event is created), likes and comments. Hidden posts and comments stay for their author and admins.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE feed_posts (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      author_id bigint NOT NULL REFERENCES users (id),
      group_id bigint REFERENCES groups (id),
      kind text NOT NULL DEFAULT 'post' CHECK (kind IN ('post', 'activity')),
      activity_type text,
      subject_type text,
      subject_id bigint,
      body text NOT NULL,
      image_url text,
      is_hidden boolean NOT NULL DEFAULT false,
      like_count integer NOT NULL DEFAULT 0 CHECK (like_count >= 0),
      comment_count integer NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'activity') = (activity_type IS NOT NULL))
    )`
  yield* sql`CREATE INDEX feed_posts_feed ON feed_posts (tenant_id, id DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX feed_posts_group ON feed_posts (tenant_id, group_id, id DESC) WHERE deleted_at IS NULL`
  // One activity record per subject and activity: a redelivered domain event writes nothing twice.
  yield* sql`
    CREATE UNIQUE INDEX feed_posts_activity ON feed_posts (tenant_id, activity_type, subject_type, subject_id)
    WHERE kind = 'activity'`

  yield* sql`
    CREATE TABLE feed_likes (
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      post_id bigint NOT NULL REFERENCES feed_posts (id),
      user_id bigint NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (post_id, user_id)
    )`

  yield* sql`
    CREATE TABLE feed_comments (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      post_id bigint NOT NULL REFERENCES feed_posts (id),
      author_id bigint NOT NULL REFERENCES users (id),
      body text NOT NULL,
      is_hidden boolean NOT NULL DEFAULT false,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX feed_comments_post ON feed_comments (tenant_id, post_id, id) WHERE deleted_at IS NULL`
})
