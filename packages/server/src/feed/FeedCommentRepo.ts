import { FeedCommentId, FeedPostId, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { FeedReader } from "./FeedPostRepo.js"

/** A row of `feed_comments` (deleted rows are never read). */
export const FeedCommentRow = Schema.Struct({
  id: dbId(FeedCommentId),
  post_id: dbId(FeedPostId),
  author_id: dbId(UserId),
  body: Schema.String,
  is_hidden: Schema.Boolean,
  created_at: DbDate
})
export type FeedCommentRow = typeof FeedCommentRow.Type

const comments = decodeRows(FeedCommentRow)

export interface CommentPageQuery {
  readonly postId: number
  readonly reader: FeedReader
  /** Rows newer than this id (the cursor). */
  readonly after?: number | undefined
  readonly limit: number
}

/** Comments on the current tenant's feed posts. */
export class FeedCommentRepo extends Effect.Service<FeedCommentRepo>()("FeedCommentRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal("id, post_id, author_id, body, is_hidden, created_at")

    return {
      /** The comment, unless deleted. */
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM feed_comments
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(decodeFirst(FeedCommentRow))
        ),

      /** Writes the comment; call in the transaction that counts it on its post. */
      insert: (postId: number, authorId: number, body: string) =>
        db.query((tenantId) =>
          sql`INSERT INTO feed_comments ${
            sql.insert({ tenant_id: tenantId, post_id: postId, author_id: authorId, body })
          } RETURNING ${columns}`.pipe(decodeSingle(FeedCommentRow))
        ),

      /** Soft-deletes the comment; false when it was deleted already (so it is uncounted once). */
      softDelete: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE feed_comments SET deleted_at = now()
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        ),

      /**
       * A post's comments, oldest first; hidden ones only for their author and admins (index
       * `feed_comments_post (tenant_id, post_id, id) WHERE deleted_at IS NULL`).
       */
      page: (q: CommentPageQuery) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM feed_comments
              WHERE tenant_id = ${tenantId} AND post_id = ${q.postId} AND deleted_at IS NULL
                ${q.reader.isAdmin ? sql`` : sql`AND (NOT is_hidden OR author_id = ${q.reader.userId})`}
                ${q.after === undefined ? sql`` : sql`AND id > ${q.after}`}
              ORDER BY id LIMIT ${q.limit}`.pipe(comments)
        )
    } as const
  })
}) {}
