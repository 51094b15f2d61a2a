import type { Fragment } from "@effect/sql/Statement"
import { FeedPostId, FeedPostKind, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `feed_posts` (deleted rows are never read). */
export const FeedPostRow = Schema.Struct({
  id: dbId(FeedPostId),
  author_id: dbId(UserId),
  group_id: Schema.NullOr(DbInt),
  kind: FeedPostKind,
  activity_type: Schema.NullOr(Schema.String),
  subject_type: Schema.NullOr(Schema.String),
  subject_id: Schema.NullOr(DbInt),
  body: Schema.String,
  image_url: Schema.NullOr(Schema.String),
  is_hidden: Schema.Boolean,
  like_count: DbInt,
  comment_count: DbInt,
  created_at: DbDate
})
export type FeedPostRow = typeof FeedPostRow.Type

const firstPost = decodeFirst(FeedPostRow)
const posts = decodeRows(FeedPostRow)
const PostIdRow = Schema.Struct({ post_id: DbInt })
const LikeCount = Schema.Struct({ like_count: DbInt })

/** Who reads a list: hidden posts show only to their author and to admins. */
export interface FeedReader {
  readonly userId: number
  readonly isAdmin: boolean
}

export interface FeedPageQuery {
  readonly reader: FeedReader
  /** Rows older than this id (the cursor). */
  readonly before?: number | undefined
  readonly limit: number
}

export interface PostInsert {
  readonly authorId: number
  readonly groupId: number | null
  readonly body: string
  readonly imageUrl: string | null
}

export interface ActivityInsert {
  readonly authorId: number
  readonly groupId: number | null
  readonly activityType: string
  readonly subjectType: string
  readonly subjectId: number
  readonly body: string
}

/** Posts of the current tenant's feed, their likes and counters. */
export class FeedPostRepo extends Effect.Service<FeedPostRepo>()("FeedPostRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(
      "id, author_id, group_id, kind, activity_type, subject_type, subject_id, body, image_url, is_hidden, " +
        "like_count, comment_count, created_at"
    )

    const hiddenFilter = (reader: FeedReader) =>
      reader.isAdmin ? sql`` : sql`AND (NOT is_hidden OR author_id = ${reader.userId})`
    const olderThan = (before: number | undefined) => (before === undefined ? sql`` : sql`AND id < ${before}`)

    return {
      /** The post, unless deleted. */
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM feed_posts
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(firstPost)
        ),

      insert: (post: PostInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO feed_posts ${
            sql.insert({
              tenant_id: tenantId,
              author_id: post.authorId,
              group_id: post.groupId,
              kind: "post",
              body: post.body,
              image_url: post.imageUrl
            })
          } RETURNING ${columns}`.pipe(decodeSingle(FeedPostRow))
        ),

      /** Writes the activity record once: a second one for the same subject and activity writes nothing. */
      insertActivity: (activity: ActivityInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO feed_posts ${
            sql.insert({
              tenant_id: tenantId,
              author_id: activity.authorId,
              group_id: activity.groupId,
              kind: "activity",
              activity_type: activity.activityType,
              subject_type: activity.subjectType,
              subject_id: activity.subjectId,
              body: activity.body
            })
          }
          ON CONFLICT (tenant_id, activity_type, subject_type, subject_id) WHERE kind = 'activity' DO NOTHING
          RETURNING ${columns}`.pipe(firstPost)
        ),

      /** Removes the activity records about these subjects (their subject is gone). */
      deleteActivities: (subjectType: string, subjectIds: ReadonlyArray<number>) =>
        db.query((tenantId) =>
          sql`UPDATE feed_posts SET deleted_at = now()
              WHERE tenant_id = ${tenantId} AND kind = 'activity' AND subject_type = ${subjectType}
                AND subject_id = ANY(${pgArray(subjectIds)}::bigint[]) AND deleted_at IS NULL`.pipe(Effect.asVoid)
        ),

      /** Soft-deletes the post; false when it was deleted already. */
      softDelete: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE feed_posts SET deleted_at = now()
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        ),

      /**
       * The home page, newest first: the community's posts and those of `groups` (a sub-select of group ids), in
       * one query (index `feed_posts_feed (tenant_id, id DESC) WHERE deleted_at IS NULL`).
       */
      homePage: (q: FeedPageQuery, groups: Fragment) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM feed_posts
              WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
                AND (group_id IS NULL OR group_id IN (${groups}))
                ${hiddenFilter(q.reader)} ${olderThan(q.before)}
              ORDER BY id DESC LIMIT ${q.limit}`.pipe(posts)
        ),

      /** One group's posts, newest first (index `feed_posts_group (tenant_id, group_id, id DESC)`). */
      groupPage: (q: FeedPageQuery, groupId: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM feed_posts
              WHERE tenant_id = ${tenantId} AND group_id = ${groupId} AND deleted_at IS NULL
                ${hiddenFilter(q.reader)} ${olderThan(q.before)}
              ORDER BY id DESC LIMIT ${q.limit}`.pipe(posts)
        ),

      /** Which of the posts the member liked: one query for a page (primary key `(post_id, user_id)`). */
      likedAmong: (postIds: ReadonlyArray<number>, userId: number) =>
        postIds.length === 0
          ? Effect.succeed<ReadonlySet<number>>(new Set())
          : db.query((tenantId) =>
            sql`SELECT post_id FROM feed_likes
                WHERE tenant_id = ${tenantId} AND user_id = ${userId}
                  AND post_id = ANY(${pgArray([...new Set(postIds)])}::bigint[])`.pipe(
              decodeRows(PostIdRow),
              Effect.map((rows): ReadonlySet<number> => new Set(rows.map((r) => r.post_id)))
            )
          ),

      /**
       * Likes the post once: the like and the count move together in one statement, and a second like (or a
       * concurrent one) inserts nothing and counts nothing. The post's count after it.
       */
      like: (postId: number, userId: number) =>
        db.query((tenantId) =>
          sql`WITH added AS (
                INSERT INTO feed_likes (tenant_id, post_id, user_id) VALUES (${tenantId}, ${postId}, ${userId})
                ON CONFLICT (post_id, user_id) DO NOTHING RETURNING post_id
              )
              UPDATE feed_posts SET like_count = like_count + (SELECT count(*) FROM added)::int
              WHERE tenant_id = ${tenantId} AND id = ${postId} RETURNING like_count`.pipe(
            decodeFirst(LikeCount),
            Effect.map(Option.match({ onNone: () => 0, onSome: (r) => r.like_count }))
          )
        ),

      /** Takes the member's like back, the count with it, in one statement; without a like nothing changes. */
      unlike: (postId: number, userId: number) =>
        db.query((tenantId) =>
          sql`WITH removed AS (
                DELETE FROM feed_likes
                WHERE tenant_id = ${tenantId} AND post_id = ${postId} AND user_id = ${userId} RETURNING post_id
              )
              UPDATE feed_posts SET like_count = like_count - (SELECT count(*) FROM removed)::int
              WHERE tenant_id = ${tenantId} AND id = ${postId} RETURNING like_count`.pipe(
            decodeFirst(LikeCount),
            Effect.map(Option.match({ onNone: () => 0, onSome: (r) => r.like_count }))
          )
        ),

      /** Moves the post's comment count by `delta` (inside the comment's write transaction). */
      addComments: (postId: number, delta: number) =>
        db.query((tenantId) =>
          sql`UPDATE feed_posts SET comment_count = comment_count + ${delta}
              WHERE tenant_id = ${tenantId} AND id = ${postId}`.pipe(Effect.asVoid)
        )
    } as const
  })
}) {}
