import {
  type CreateFeedComment,
  DomainEvents,
  FEED_COMMENTS_PER_PAGE_DEFAULT,
  type FeedCommentId,
  type FeedCommentListParams,
  type FeedPostId
} from "@timebank/domain"
import { Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { TenantSql } from "../platform/TenantSql.js"
import { FeedCommentRepo } from "./FeedCommentRepo.js"
import { CommentDeleter, FeedAccess, PostInteraction, ReadablePost } from "./FeedPolicy.js"
import { FeedPostRepo } from "./FeedPostRepo.js"
import { FeedViews } from "./FeedViews.js"

/** Comments on feed posts; each write moves its post's `comment_count` in the same transaction. */
export class FeedCommentsService extends Effect.Service<FeedCommentsService>()("FeedCommentsService", {
  dependencies: [
    FeedCommentRepo.Default,
    FeedPostRepo.Default,
    FeedAccess.Default,
    FeedViews.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* FeedCommentRepo
    const posts = yield* FeedPostRepo
    const access = yield* FeedAccess
    const views = yield* FeedViews
    const outbox = yield* Outbox

    /** A page of a readable post's comments, oldest first: one query for the comments, one for their authors. */
    const list = Effect.fn("FeedComments.list")(function*(postId: FeedPostId, params: FeedCommentListParams) {
      const page = Effect.gen(function*() {
        const { post, reader } = yield* ReadablePost
        const perPage = params.per_page ?? FEED_COMMENTS_PER_PAGE_DEFAULT
        const rows = yield* repo.page({ postId: post.id, reader, after: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, views.commentViews)
      })
      return yield* access.readable(postId)(page)
    })

    const create = Effect.fn("FeedComments.create")(function*(postId: FeedPostId, input: CreateFeedComment) {
      const write = Effect.gen(function*() {
        const { actor, post } = yield* PostInteraction
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(post.id, actor.userId, input.body)
          yield* posts.addComments(post.id, 1)
          yield* outbox.append(
            new DomainEvents.FeedCommentCreated({
              comment_id: row.id,
              post_id: post.id,
              post_author_id: post.author_id,
              user_id: actor.userId,
              group_id: post.group_id
            })
          )
          return row
        }))
        const [view] = yield* views.commentViews([row])
        return view!
      })
      return yield* access.readable(postId)(access.interact(write))
    })

    const remove = Effect.fn("FeedComments.delete")(function*(id: FeedCommentId) {
      const deletion = Effect.gen(function*() {
        const comment = yield* CommentDeleter
        yield* db.transaction(Effect.gen(function*() {
          if (yield* repo.softDelete(comment.id)) yield* posts.addComments(comment.post_id, -1)
        }))
        return { id, deleted: true as const }
      })
      return yield* access.deleteComment(id)(deletion)
    })

    return { list, create, remove } as const
  })
}) {}
