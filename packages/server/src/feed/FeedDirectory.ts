import type { Actor, CurrentTenant } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { isTenantAdmin } from "../platform/Policy.js"
import { DbInt, decodeFirst } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** The columns that decide who sees a post. */
const PostFacts = Schema.Struct({
  author_id: DbInt,
  is_hidden: Schema.Boolean,
  group_id: Schema.NullOr(DbInt)
})
type PostFacts = typeof PostFacts.Type

/** A comment's own facts and its post's. */
const CommentFacts = Schema.Struct({
  author_id: DbInt,
  is_hidden: Schema.Boolean,
  post_author_id: DbInt,
  post_hidden: Schema.Boolean,
  post_group_id: Schema.NullOr(DbInt)
})

/**
 * What other features may read of the feed (moderation checks what a member reports). Who sees what follows
 * decisions D14a, as the feed's own routes decide it: deleted posts and comments are gone; hidden ones exist only
 * for their author and admins; a post in a group needs the group, and for a private group its membership.
 */
export class FeedDirectory extends Effect.Service<FeedDirectory>()("FeedDirectory", {
  dependencies: [TenantSql.Default, GroupDirectory.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const groups = yield* GroupDirectory

    const seesPost = (viewer: Actor, post: PostFacts): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.gen(function*() {
        const admin = isTenantAdmin(viewer)
        const author = viewer.userId === post.author_id
        if (post.is_hidden && !admin && !author) return false
        if (post.group_id === null) return true
        const group = yield* groups.find(post.group_id)
        if (Option.isNone(group)) return false
        if (author || admin || group.value.visibility === "public") return true
        return yield* groups.isActiveMember(post.group_id, viewer.userId)
      })

    /** Whether `viewer` can see post `id` of this community. */
    const postVisibleTo = (id: number, viewer: Actor): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.flatMap(
        db.query((tenantId) =>
          sql`SELECT author_id, is_hidden, group_id FROM feed_posts
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(decodeFirst(PostFacts))
        ),
        Option.match({ onNone: () => Effect.succeed(false), onSome: (post) => seesPost(viewer, post) })
      )

    /** Whether `viewer` can see comment `id` of this community, and the post it is on. */
    const commentVisibleTo = (id: number, viewer: Actor): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.flatMap(
        db.query((tenantId) =>
          sql`SELECT c.author_id, c.is_hidden, p.author_id AS post_author_id, p.is_hidden AS post_hidden,
                     p.group_id AS post_group_id
              FROM feed_comments c
              JOIN feed_posts p ON p.id = c.post_id AND p.tenant_id = c.tenant_id AND p.deleted_at IS NULL
              WHERE c.tenant_id = ${tenantId} AND c.id = ${id} AND c.deleted_at IS NULL`.pipe(
            decodeFirst(CommentFacts)
          )
        ),
        Option.match({
          onNone: () => Effect.succeed(false),
          onSome: (comment) =>
            comment.is_hidden && !isTenantAdmin(viewer) && viewer.userId !== comment.author_id
              ? Effect.succeed(false)
              : seesPost(viewer, {
                author_id: comment.post_author_id,
                is_hidden: comment.post_hidden,
                group_id: comment.post_group_id
              })
        })
      )

    return { postVisibleTo, commentVisibleTo } as const
  })
}) {}
