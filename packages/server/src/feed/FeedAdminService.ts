import {
  type AdminCommentsParams,
  type AdminFeedPostsParams,
  CurrentTenant,
  type FeedCommentId,
  type FeedPostId,
  type FeedStats,
  ModerationStateConflict,
  offsetMeta
} from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { periodOf } from "./FeedAdminPeriod.js"
import { FeedAdminRepo } from "./FeedAdminRepo.js"
import { FeedCommentRepo, type FeedCommentRow } from "./FeedCommentRepo.js"
import { commentNotFound, postNotFound } from "./FeedPolicy.js"
import { FeedPostRepo, type FeedPostRow } from "./FeedPostRepo.js"
import { FeedViews } from "./FeedViews.js"

export const DEFAULT_ADMIN_FEED_PER_PAGE = 20

const WEEK_MS = 7 * 24 * 3_600_000

/**
 * Feed moderation for community admins (decisions D14a, D17 "Moderation"): every post and comment, hidden ones
 * included; hiding uses the members' rule (a hidden post or comment is seen by its author and admins only), so it
 * takes effect on every member's list and detail at once. Not gated on the `feed` feature: admins still clean up
 * while members cannot use the feed. Moderation's report resolution hides through `ensurePostHidden` and
 * `ensureCommentHidden`.
 */
export class FeedAdminService extends Effect.Service<FeedAdminService>()("FeedAdminService", {
  dependencies: [
    FeedAdminRepo.Default,
    FeedPostRepo.Default,
    FeedCommentRepo.Default,
    FeedViews.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* FeedAdminRepo
    const posts = yield* FeedPostRepo
    const comments = yield* FeedCommentRepo
    const views = yield* FeedViews

    const postView = (admin: { readonly userId: number }) => (row: FeedPostRow) =>
      Effect.map(views.postViews([row], admin.userId), (list) => list[0]!)
    const commentView = (row: FeedCommentRow) => Effect.map(views.commentViews([row]), (list) => list[0]!)

    const findPost = (id: number) => Effect.flatten(posts.findById(id)).pipe(Effect.orElseFail(postNotFound))
    const findComment = (id: number) => Effect.flatten(comments.findById(id)).pipe(Effect.orElseFail(commentNotFound))

    const listPosts = Effect.fn("FeedAdmin.listPosts")(function*(params: AdminFeedPostsParams) {
      const admin = yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const period = yield* periodOf(params, tenant.timezone)
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_FEED_PER_PAGE)
      const { rows, total } = yield* repo.posts({
        page,
        perPage,
        authorId: params.author_id,
        groupId: params.group_id,
        isHidden: params.is_hidden,
        search: params.search,
        ...period
      })
      return { data: yield* views.postViews(rows, admin.userId), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const stats = Effect.fn("FeedAdmin.stats")(function*() {
      yield* TenantAdmin
      const now = yield* Clock.currentTimeMillis
      return (yield* repo.stats(new Date(now - WEEK_MS))) satisfies FeedStats
    }, requireTenantAdmin)

    const getPost = Effect.fn("FeedAdmin.getPost")(function*(id: FeedPostId) {
      const admin = yield* TenantAdmin
      return yield* postView(admin)(yield* findPost(id))
    }, requireTenantAdmin)

    const deletePost = Effect.fn("FeedAdmin.deletePost")(function*(id: FeedPostId) {
      yield* TenantAdmin
      if (!(yield* posts.softDelete(id))) return yield* postNotFound()
      return { id, deleted: true as const }
    }, requireTenantAdmin)

    /** Hides the post; hidden already → 409 `INVALID_STATE`, unless `allowHidden` (then it answers the post). */
    const hidePostOnce = (id: number, allowHidden: boolean) =>
      Effect.gen(function*() {
        const admin = yield* TenantAdmin
        const hidden = yield* repo.hidePost(id)
        if (Option.isSome(hidden)) return yield* postView(admin)(hidden.value)
        const current = yield* findPost(id)
        if (!allowHidden) return yield* new ModerationStateConflict({ message: "This post is hidden already" })
        return yield* postView(admin)(current)
      })

    const hidePost = Effect.fn("FeedAdmin.hidePost")(
      (id: FeedPostId) => hidePostOnce(id, false),
      requireTenantAdmin
    )

    /** The post hidden, whether it was already or not (resolving a report); 404 when it is gone. */
    const ensurePostHidden = Effect.fn("FeedAdmin.ensurePostHidden")(
      (id: number) => hidePostOnce(id, true),
      requireTenantAdmin
    )

    const listComments = Effect.fn("FeedAdmin.listComments")(function*(params: AdminCommentsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_FEED_PER_PAGE)
      const { rows, total } = yield* repo.comments({
        page,
        perPage,
        postId: params.post_id,
        authorId: params.author_id,
        isHidden: params.is_hidden
      })
      return { data: yield* views.commentViews(rows), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const getComment = Effect.fn("FeedAdmin.getComment")(function*(id: FeedCommentId) {
      yield* TenantAdmin
      return yield* commentView(yield* findComment(id))
    }, requireTenantAdmin)

    /** Soft-deletes the comment and uncounts it on its post, in one transaction (as its author's delete does). */
    const deleteComment = Effect.fn("FeedAdmin.deleteComment")(function*(id: FeedCommentId) {
      yield* TenantAdmin
      const comment = yield* findComment(id)
      yield* db.transaction(Effect.gen(function*() {
        if (!(yield* comments.softDelete(comment.id))) return yield* commentNotFound()
        yield* posts.addComments(comment.post_id, -1)
      }))
      return { id, deleted: true as const }
    }, requireTenantAdmin)

    const hideCommentOnce = (id: number, allowHidden: boolean) =>
      Effect.gen(function*() {
        yield* TenantAdmin
        const hidden = yield* repo.hideComment(id)
        if (Option.isSome(hidden)) return yield* commentView(hidden.value)
        const current = yield* findComment(id)
        if (!allowHidden) return yield* new ModerationStateConflict({ message: "This comment is hidden already" })
        return yield* commentView(current)
      })

    const hideComment = Effect.fn("FeedAdmin.hideComment")(
      (id: FeedCommentId) => hideCommentOnce(id, false),
      requireTenantAdmin
    )

    /** The comment hidden, whether it was already or not (resolving a report); 404 when it is gone. */
    const ensureCommentHidden = Effect.fn("FeedAdmin.ensureCommentHidden")(
      (id: number) => hideCommentOnce(id, true),
      requireTenantAdmin
    )

    return {
      listPosts,
      stats,
      getPost,
      deletePost,
      hidePost,
      ensurePostHidden,
      listComments,
      getComment,
      deleteComment,
      hideComment,
      ensureCommentHidden
    } as const
  })
}) {}
