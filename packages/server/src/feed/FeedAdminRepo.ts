import { Effect, Schema } from "effect"
import { likePattern } from "../platform/SqlErrors.js"
import { DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { FeedCommentRow } from "./FeedCommentRepo.js"
import { FeedPostRow } from "./FeedPostRepo.js"

const Count = Schema.Struct({ n: DbInt })

const Stats = Schema.Struct({
  posts: DbInt,
  hidden_posts: DbInt,
  likes: DbInt,
  posts_last_7_days: DbInt,
  comments: DbInt,
  hidden_comments: DbInt,
  comments_last_7_days: DbInt
})
export type FeedStatsRow = typeof Stats.Type

export interface OffsetQuery {
  readonly page: number
  readonly perPage: number
}

export interface AdminPostQuery extends OffsetQuery {
  readonly authorId?: number | undefined
  readonly groupId?: number | undefined
  readonly isHidden?: boolean | undefined
  readonly search?: string | undefined
  /** Posts written at or after this instant. */
  readonly from?: Date | undefined
  /** Posts written before this instant. */
  readonly before?: Date | undefined
}

export interface AdminCommentQuery extends OffsetQuery {
  readonly postId?: number | undefined
  readonly authorId?: number | undefined
  readonly isHidden?: boolean | undefined
}

/**
 * What feed moderation reads and writes beyond the members' routes: every post and comment (hidden ones included)
 * with filters, the feed's counts, and hiding. Deleted rows are never read.
 */
export class FeedAdminRepo extends Effect.Service<FeedAdminRepo>()("FeedAdminRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const postColumns = sql.literal(
      "id, author_id, group_id, kind, activity_type, subject_type, subject_id, body, image_url, is_hidden, " +
        "like_count, comment_count, created_at"
    )
    const commentColumns = sql.literal("id, post_id, author_id, body, is_hidden, created_at")

    const pageOf = <A, I>(
      table: "feed_posts" | "feed_comments",
      columns: ReturnType<typeof sql.literal>,
      row: Schema.Schema<A, I>,
      where: ReturnType<typeof sql.and>,
      q: OffsetQuery
    ) =>
      Effect.all({
        rows: sql`SELECT ${columns} FROM ${sql(table)} WHERE ${where}
                  ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(decodeRows(row)),
        total: sql`SELECT count(*)::int AS n FROM ${sql(table)} WHERE ${where}`.pipe(
          decodeSingle(Count),
          Effect.map((r) => r.n)
        )
      }, { concurrency: 2 })

    return {
      /** Posts newest first, hidden ones included (indexes `feed_posts_feed`, `_author`, `_group`, `_hidden`). */
      posts: (q: AdminPostQuery) =>
        db.query((tenantId) => {
          const where = [sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`]
          if (q.authorId !== undefined) where.push(sql`author_id = ${q.authorId}`)
          if (q.groupId !== undefined) where.push(sql`group_id = ${q.groupId}`)
          if (q.isHidden !== undefined) where.push(q.isHidden ? sql`is_hidden` : sql`NOT is_hidden`)
          if (q.search !== undefined && q.search !== "") where.push(sql`body ILIKE ${likePattern(q.search)}`)
          if (q.from !== undefined) where.push(sql`created_at >= ${q.from}`)
          if (q.before !== undefined) where.push(sql`created_at < ${q.before}`)
          return pageOf("feed_posts", postColumns, FeedPostRow, sql.and(where), q)
        }),

      /** Comments newest first, hidden ones included (indexes `feed_comments_admin`, `_post`, `_author`). */
      comments: (q: AdminCommentQuery) =>
        db.query((tenantId) => {
          const where = [sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`]
          if (q.postId !== undefined) where.push(sql`post_id = ${q.postId}`)
          if (q.authorId !== undefined) where.push(sql`author_id = ${q.authorId}`)
          if (q.isHidden !== undefined) where.push(q.isHidden ? sql`is_hidden` : sql`NOT is_hidden`)
          return pageOf("feed_comments", commentColumns, FeedCommentRow, sql.and(where), q)
        }),

      /** The feed's counts, posts and comments not deleted; "last 7 days" from `since`. */
      stats: (since: Date) =>
        db.query((tenantId) =>
          sql`
            SELECT p.posts, p.hidden_posts, p.likes, p.posts_last_7_days,
                   c.comments, c.hidden_comments, c.comments_last_7_days
            FROM (
              SELECT count(*)::int AS posts, count(*) FILTER (WHERE is_hidden)::int AS hidden_posts,
                     coalesce(sum(like_count), 0)::int AS likes,
                     count(*) FILTER (WHERE created_at >= ${since})::int AS posts_last_7_days
              FROM feed_posts WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
            ) p, (
              SELECT count(*)::int AS comments, count(*) FILTER (WHERE is_hidden)::int AS hidden_comments,
                     count(*) FILTER (WHERE created_at >= ${since})::int AS comments_last_7_days
              FROM feed_comments WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
            ) c`.pipe(decodeSingle(Stats))
        ),

      /** Hides the post; none when it is hidden already (or deleted, or not this community's). */
      hidePost: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE feed_posts SET is_hidden = true
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL AND NOT is_hidden
              RETURNING ${postColumns}`.pipe(decodeFirst(FeedPostRow))
        ),

      /** Hides the comment; none when it is hidden already (or deleted, or not this community's). */
      hideComment: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE feed_comments SET is_hidden = true
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL AND NOT is_hidden
              RETURNING ${commentColumns}`.pipe(decodeFirst(FeedCommentRow))
        )
    } as const
  })
}) {}
