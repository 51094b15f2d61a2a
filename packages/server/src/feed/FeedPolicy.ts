import { type Actor, type CurrentTenant, CurrentUser, Forbidden, NotFound, ValidationFailed } from "@timebank/domain"
import { Context, Effect, Option } from "effect"
import { GroupDirectory, type GroupSummary } from "../groups/GroupDirectory.js"
import { isCommunityMember, isTenantAdmin } from "../platform/Policy.js"
import { FeedCommentRepo, type FeedCommentRow } from "./FeedCommentRepo.js"
import { FeedPostRepo, type FeedPostRow, type FeedReader } from "./FeedPostRepo.js"

export const postNotFound = () => NotFound.of("Post")
export const commentNotFound = () => NotFound.of("Comment")
export const groupNotFound = () => NotFound.of("Group")

/** The caller as the feed sees them: admins (and platform super-admins) see hidden posts and comments. */
export const readerOf = (actor: Actor): FeedReader => ({ userId: actor.userId, isAdmin: isTenantAdmin(actor) })

/** The caller wrote this (as a member of this community, not as a visiting super-admin). */
const isAuthor = (actor: Actor, authorId: number) => actor.userId === authorId && isCommunityMember(actor)

/** A post the caller may read, with its group. Provided only by `FeedAccess.readable`. */
export class ReadablePost extends Context.Tag("Policy/FeedReadablePost")<ReadablePost, {
  readonly actor: Actor
  readonly reader: FeedReader
  readonly post: FeedPostRow
  readonly group: Option.Option<GroupSummary>
}>() {}

/** A readable post the caller may like and comment on. Provided only by `FeedAccess.interact`. */
export class PostInteraction extends Context.Tag("Policy/FeedPostInteraction")<PostInteraction, {
  readonly actor: Actor
  readonly post: FeedPostRow
}>() {}

/** A readable post the caller may delete. Provided only by `FeedAccess.deletePost`. */
export class PostDeleter extends Context.Tag("Policy/FeedPostDeleter")<PostDeleter, FeedPostRow>() {}

/** A comment the caller may delete. Provided only by `FeedAccess.deleteComment`. */
export class CommentDeleter extends Context.Tag("Policy/FeedCommentDeleter")<CommentDeleter, FeedCommentRow>() {}

type Scoped<A, E, R, Tag> = Effect.Effect<A, E, Exclude<R, Tag> | CurrentUser | CurrentTenant>

/**
 * Who may read, write, like, comment on and delete what in the feed (decisions D14a): a group's posts need its
 * active membership (reading a private group's: membership or an admin); hidden posts and comments exist only for
 * their author and admins; a post or comment is deleted by its author, an admin, or its group's organisers.
 */
export class FeedAccess extends Effect.Service<FeedAccess>()("FeedAccess", {
  dependencies: [FeedPostRepo.Default, FeedCommentRepo.Default, GroupDirectory.Default],
  effect: Effect.gen(function*() {
    const posts = yield* FeedPostRepo
    const comments = yield* FeedCommentRepo
    const groups = yield* GroupDirectory

    /** Whether the caller may read the group's posts: a public group, or a member or admin for a private one. */
    const mayReadGroup = (actor: Actor, group: GroupSummary) =>
      group.visibility === "public" || isTenantAdmin(actor)
        ? Effect.succeed(true)
        : isCommunityMember(actor)
        ? groups.isActiveMember(group.id, actor.userId)
        : Effect.succeed(false)

    /** The group `GET /feed?group_id=` names, when the caller may read it: 404 unknown, 403 private. */
    const readableGroup = (groupId: number) =>
      Effect.gen(function*() {
        const actor = yield* CurrentUser
        const group = yield* Effect.flatten(groups.find(groupId)).pipe(Effect.orElseFail(groupNotFound))
        if (!(yield* mayReadGroup(actor, group))) {
          return yield* new Forbidden({ message: "Only members of this private group may read its posts" })
        }
        return group
      })

    /**
     * The group a new post goes to: none, or a group of this community (422 on `group_id` otherwise, as for an
     * unknown one) that the caller is an active member of (403), open for posts (403 when archived or rejected).
     */
    const postingGroup = (actor: Actor, groupId: number | undefined) =>
      Effect.gen(function*() {
        if (groupId === undefined) return Option.none<GroupSummary>()
        const group = yield* groups.find(groupId)
        if (Option.isNone(group)) {
          return yield* ValidationFailed.field("group_id", "is not a group of this community")
        }
        if (!(yield* groups.isActiveMember(groupId, actor.userId))) {
          return yield* new Forbidden({ message: "Only active members of this group may post in it" })
        }
        if (group.value.status === "archived" || group.value.status === "rejected") {
          return yield* new Forbidden({ message: `This group is ${group.value.status}: it takes no new posts` })
        }
        return group
      })

    /** Whether the caller may see the comment itself (a hidden one: its author and admins); its post aside. */
    const seesComment = (actor: Actor, comment: { readonly is_hidden: boolean; readonly author_id: number }) =>
      !comment.is_hidden || isTenantAdmin(actor) || isAuthor(actor, comment.author_id)

    /** Whether the caller may see the post; its group with it. */
    const visibility = (actor: Actor, post: FeedPostRow) =>
      Effect.gen(function*() {
        const admin = isTenantAdmin(actor)
        const author = isAuthor(actor, post.author_id)
        if (post.is_hidden && !admin && !author) return Option.none()
        if (post.group_id === null) return Option.some(Option.none<GroupSummary>())
        const group = yield* groups.find(post.group_id)
        if (Option.isNone(group)) return Option.none()
        const mayRead = author || (yield* mayReadGroup(actor, group.value))
        return mayRead ? Option.some(group) : Option.none()
      })

    /** Runs `effect` with the post, when the caller may read it; 404 otherwise (as for an unknown id). */
    const readable =
      (postId: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Scoped<A, E | NotFound, R, ReadablePost> =>
        Effect.gen(function*() {
          const actor = yield* CurrentUser
          const post = yield* Effect.flatten(posts.findById(postId)).pipe(Effect.orElseFail(postNotFound))
          const group = yield* Effect.flatten(visibility(actor, post)).pipe(Effect.orElseFail(postNotFound))
          return yield* Effect.provideService(effect, ReadablePost, { actor, reader: readerOf(actor), post, group })
        })

    /**
     * Runs `effect` when the caller may like and comment on the readable post: a member of this community, of the
     * post's group if it has one, and the post not hidden (hidden posts take no likes or comments; only their
     * author and admins get that far).
     */
    const interact = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const { actor, post } = yield* ReadablePost
        if (!isCommunityMember(actor)) {
          return yield* new Forbidden({ message: "Only members of this community may like and comment" })
        }
        if (post.is_hidden) return yield* new Forbidden({ message: "This post is hidden" })
        if (post.group_id !== null && !(yield* groups.isActiveMember(post.group_id, actor.userId))) {
          return yield* new Forbidden({ message: "Only active members of this group may like and comment here" })
        }
        return yield* Effect.provideService(effect, PostInteraction, { actor, post })
      })

    /** Its author, an admin, or an organiser of the group the post is in. */
    const mayModerate = (actor: Actor, authorId: number, groupId: number | null) =>
      isAuthor(actor, authorId) || isTenantAdmin(actor)
        ? Effect.succeed(true)
        : groupId !== null && isCommunityMember(actor)
        ? groups.isOrganiser(groupId, actor.userId)
        : Effect.succeed(false)

    /** Runs `effect` when the caller may delete the readable post (403 otherwise). */
    const deletePost = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const { actor, post } = yield* ReadablePost
        if (!(yield* mayModerate(actor, post.author_id, post.group_id))) {
          return yield* new Forbidden({ message: "Only its author, an admin or the group's organisers may do this" })
        }
        return yield* Effect.provideService(effect, PostDeleter, post)
      })

    /**
     * Runs `effect` when the caller may delete the comment: 404 unless they may read it (and its post), 403 unless
     * its author, an admin, or an organiser of the post's group.
     */
    const deleteComment =
      (commentId: number) =>
      <A, E, R>(effect: Effect.Effect<A, E, R>): Scoped<A, E | NotFound | Forbidden, R, CommentDeleter> =>
        Effect.gen(function*() {
          const comment = yield* Effect.flatten(comments.findById(commentId)).pipe(Effect.orElseFail(commentNotFound))
          const check = Effect.gen(function*() {
            const { actor, post } = yield* ReadablePost
            if (!seesComment(actor, comment)) {
              return yield* commentNotFound()
            }
            if (!(yield* mayModerate(actor, comment.author_id, post.group_id))) {
              return yield* new Forbidden({
                message: "Only its author, an admin or the group's organisers may do this"
              })
            }
            return yield* Effect.provideService(effect, CommentDeleter, comment)
          })
          return yield* readable(comment.post_id)(check).pipe(
            Effect.catchIf((e): e is NotFound => e instanceof NotFound, () => Effect.fail(commentNotFound()))
          )
        })

    return {
      readableGroup,
      postingGroup,
      visibility,
      seesComment,
      readable,
      interact,
      deletePost,
      deleteComment
    } as const
  })
}) {}
