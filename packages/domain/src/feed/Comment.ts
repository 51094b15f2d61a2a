import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserSummary } from "../identity/UserSummary.js"
import { FeedPostId, FeedText } from "./Post.js"

export const FeedCommentId = RecordId.pipe(Schema.brand("FeedCommentId"))
export type FeedCommentId = typeof FeedCommentId.Type

export const FEED_COMMENT_BODY_MAX = 2000

/** A comment on a feed post. */
export class FeedComment extends Schema.Class<FeedComment>("FeedComment")({
  id: FeedCommentId,
  post_id: FeedPostId,
  author: UserSummary,
  body: Schema.String,
  is_hidden: Schema.Boolean.annotations({
    description: "Hidden by a moderator: only its author and admins see it"
  }),
  created_at: Schema.DateTimeUtc
}) {}

/** `POST /api/v2/feed/posts/{id}/comments`. */
export const CreateFeedComment = Schema.Struct({
  body: FeedText(FEED_COMMENT_BODY_MAX).annotations({ description: "1 to 2000 characters, trimmed" })
})
export type CreateFeedComment = typeof CreateFeedComment.Type

/** `GET /api/v2/feed/posts/{id}/comments?cursor=&per_page=`: oldest first, like a conversation reads. */
export const FeedCommentListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(100)).annotations({ description: "Default 50" })
})
export type FeedCommentListParams = typeof FeedCommentListParams.Type
export const FEED_COMMENTS_PER_PAGE_DEFAULT = 50

export const FeedCommentIdPath = Schema.Struct({ id: PathId(FeedCommentId) })

export const FeedCommentDeleted = Schema.Struct({ id: FeedCommentId, deleted: Schema.Literal(true) })
