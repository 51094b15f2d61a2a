import {
  type CreateFeedPost,
  CurrentUser,
  DomainEvents,
  FEED_PER_PAGE_DEFAULT,
  type FeedListParams,
  type FeedPostId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { FeedAccess, PostDeleter, PostInteraction, ReadablePost, readerOf } from "./FeedPolicy.js"
import { FeedPostRepo } from "./FeedPostRepo.js"
import { FeedRanking } from "./FeedRanking.js"
import { FeedViews } from "./FeedViews.js"

/** The feed's posts and likes (decisions D14, D14a); the contract gates their routes on `feed`. */
export class FeedService extends Effect.Service<FeedService>()("FeedService", {
  dependencies: [
    FeedPostRepo.Default,
    FeedAccess.Default,
    FeedViews.Default,
    FeedRanking.Default,
    GroupDirectory.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* FeedPostRepo
    const access = yield* FeedAccess
    const views = yield* FeedViews
    const ranking = yield* FeedRanking
    const groups = yield* GroupDirectory
    const outbox = yield* Outbox

    /** The readable post as the caller sees it. */
    const readableView = Effect.gen(function*() {
      const { actor, post } = yield* ReadablePost
      const [view] = yield* views.postViews([post], actor.userId)
      return view!
    })

    const create = Effect.fn("Feed.create")(
      function*(input: CreateFeedPost) {
        const member = yield* CommunityMember
        const group = yield* access.postingGroup(member, input.group_id)
        const groupId = Option.match(group, { onNone: () => null, onSome: (g) => g.id })
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            authorId: member.userId,
            groupId,
            body: input.body,
            imageUrl: input.image_url ?? null
          })
          yield* outbox.append(
            new DomainEvents.FeedPostCreated({ post_id: row.id, user_id: member.userId, group_id: groupId })
          )
          return row
        }))
        const [view] = yield* views.postViews([row], member.userId)
        return view!
      },
      requireCommunityMember("write posts")
    )

    /**
     * A page of the feed: the next posts by id, ranked by the community's feed algorithm (newest first by default);
     * one query for the posts, one for their authors, one for the caller's likes. Without `group_id`, the
     * community's posts and those of the caller's groups.
     */
    const list = Effect.fn("Feed.list")(function*(params: FeedListParams) {
      const actor = yield* CurrentUser
      const reader = readerOf(actor)
      const perPage = params.per_page ?? FEED_PER_PAGE_DEFAULT
      const query = { reader, before: params.cursor, limit: perPage + 1 }
      const groupId = params.group_id
      if (groupId !== undefined) yield* access.readableGroup(groupId)
      const fetch = groupId === undefined
        ? Effect.flatMap(groups.activeGroupIdsOf(actor.userId), (ids) => repo.homePage(query, ids))
        : repo.groupPage(query, groupId)
      const page = yield* ranking.page(fetch, perPage, actor.userId)
      return { data: yield* views.postViews(page.data, actor.userId), meta: page.meta }
    })

    const get = Effect.fn("Feed.get")(function*(id: FeedPostId) {
      return yield* access.readable(id)(readableView)
    })

    const remove = Effect.fn("Feed.delete")(function*(id: FeedPostId) {
      const deletion = Effect.gen(function*() {
        const post = yield* PostDeleter
        yield* repo.softDelete(post.id)
        return { id, deleted: true as const }
      })
      return yield* access.readable(id)(access.deletePost(deletion))
    })

    const setLike = (id: FeedPostId, liked: boolean) =>
      access.readable(id)(access.interact(Effect.gen(function*() {
        const { actor, post } = yield* PostInteraction
        const likeCount = liked ? yield* repo.like(post.id, actor.userId) : yield* repo.unlike(post.id, actor.userId)
        return { post_id: id, liked, like_count: likeCount }
      })))

    const like = Effect.fn("Feed.like")((id: FeedPostId) => setLike(id, true))
    const unlike = Effect.fn("Feed.unlike")((id: FeedPostId) => setLike(id, false))

    return { create, list, get, remove, like, unlike } as const
  })
}) {}
