import { FeedComment, FeedPost, type UserId, type UserSummary } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import type { FeedCommentRow } from "./FeedCommentRepo.js"
import { FeedPostRepo, type FeedPostRow } from "./FeedPostRepo.js"

/** Shown for an author the users table no longer answers for (it keeps erased users, so this should not happen). */
const authorOf = (members: ReadonlyMap<number, UserSummary>, id: UserId): UserSummary =>
  members.get(id) ?? { id, first_name: "Deleted", last_name: "User", avatar_url: null }

const activityOf = (row: FeedPostRow) =>
  row.kind === "activity" && row.activity_type !== null && row.subject_type !== null && row.subject_id !== null
    ? { type: row.activity_type, subject_type: row.subject_type, subject_id: row.subject_id }
    : null

const toPost = (row: FeedPostRow, author: UserSummary, likedByMe: boolean) =>
  FeedPost.make({
    id: row.id,
    author,
    body: row.body,
    image_url: row.image_url,
    group_id: row.group_id,
    kind: row.kind,
    activity: activityOf(row),
    like_count: row.like_count,
    comment_count: row.comment_count,
    liked_by_me: likedByMe,
    is_hidden: row.is_hidden,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/**
 * Posts and comments as the API shows them, for lists and details alike. A page loads its authors in one query
 * and the caller's likes in another, side by side, never one per item.
 */
export class FeedViews extends Effect.Service<FeedViews>()("FeedViews", {
  dependencies: [UserSummaries.Default, FeedPostRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const posts = yield* FeedPostRepo

    /** Post rows with their authors and whether `viewerId` liked them: two queries per page. */
    const postViews = (rows: ReadonlyArray<FeedPostRow>, viewerId: number) =>
      Effect.gen(function*() {
        const ids = rows.map((r) => r.id)
        const { authors, liked } = yield* Effect.all({
          authors: users.byIds(rows.map((r) => r.author_id)),
          liked: posts.likedAmong(ids, viewerId)
        }, { concurrency: 2 })
        return rows.map((row) => toPost(row, authorOf(authors, row.author_id), liked.has(row.id)))
      }).pipe(Effect.withSpan("FeedViews.posts", { attributes: { count: rows.length } }))

    /** Comment rows with their authors: one query per page. */
    const commentViews = (rows: ReadonlyArray<FeedCommentRow>) =>
      Effect.map(users.byIds(rows.map((r) => r.author_id)), (authors) =>
        rows.map((row) =>
          FeedComment.make({
            id: row.id,
            post_id: row.post_id,
            author: authorOf(authors, row.author_id),
            body: row.body,
            is_hidden: row.is_hidden,
            created_at: DateTime.unsafeFromDate(row.created_at)
          })
        ))

    return { postViews, commentViews } as const
  })
}) {}
