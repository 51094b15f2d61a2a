import type { Actor, CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import { FeedCommentRepo } from "./FeedCommentRepo.js"
import { FeedAccess } from "./FeedPolicy.js"
import { FeedPostRepo } from "./FeedPostRepo.js"

/**
 * What other features may read of the feed (moderation checks what a member reports): who sees a post or a comment,
 * decided by the feed's own rule (`FeedAccess.visibility`, decisions D14a), so the routes and this answer agree.
 */
export class FeedDirectory extends Effect.Service<FeedDirectory>()("FeedDirectory", {
  dependencies: [FeedPostRepo.Default, FeedCommentRepo.Default, FeedAccess.Default],
  effect: Effect.gen(function*() {
    const posts = yield* FeedPostRepo
    const comments = yield* FeedCommentRepo
    const policy = yield* FeedAccess

    /** Whether `viewer` can see post `id` of this community. */
    const postVisibleTo = (id: number, viewer: Actor): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.flatMap(posts.findById(id), (post) =>
        Option.isNone(post)
          ? Effect.succeed(false)
          : Effect.map(policy.visibility(viewer, post.value), (seen) => Option.isSome(seen)))

    /** Whether `viewer` can see comment `id` of this community, and the post it is on. */
    const commentVisibleTo = (id: number, viewer: Actor): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.flatMap(
        comments.findById(id),
        (comment) =>
          Option.isNone(comment) || !policy.seesComment(viewer, comment.value)
            ? Effect.succeed(false)
            : postVisibleTo(comment.value.post_id, viewer)
      )

    return { postVisibleTo, commentVisibleTo } as const
  })
}) {}
