import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserSummary } from "../identity/UserSummary.js"

export const FeedPostId = RecordId.pipe(Schema.brand("FeedPostId"))
export type FeedPostId = typeof FeedPostId.Type

/** Trimmed text of 1 to `max` code points. */
export const FeedText = (max: number) => TrimmedText(1, max)

export const FEED_POST_BODY_MAX = 5000
export const FEED_IMAGE_URL_MAX = 2000

/** An `http:` or `https:` URL with a host, at most 2000 characters. */
export const FeedImageUrl = Schema.Trim.pipe(
  Schema.filter((value) => {
    if (value.length > FEED_IMAGE_URL_MAX) return `must be at most ${FEED_IMAGE_URL_MAX} characters`
    try {
      const url = new URL(value)
      return ((url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "") ||
        "must be an http(s) URL"
    } catch {
      return "must be an http(s) URL"
    }
  }, { jsonSchema: { format: "uri", maxLength: FEED_IMAGE_URL_MAX } })
)

/** `post`: written by a member; `activity`: written by the service when something happened (an event created). */
export const FeedPostKind = Schema.Literal("post", "activity")
export type FeedPostKind = typeof FeedPostKind.Type

/** What an activity record is about. */
export const FeedActivity = Schema.Struct({
  type: Schema.String.annotations({ description: "What happened, e.g. `event_created`" }),
  subject_type: Schema.String.annotations({ description: "The kind of record it is about, e.g. `event`" }),
  subject_id: RecordId.annotations({ description: "That record's id" })
})
export type FeedActivity = typeof FeedActivity.Type

/** A post of the community feed as members see it (decisions D14, D14a). */
export class FeedPost extends Schema.Class<FeedPost>("FeedPost")({
  id: FeedPostId,
  author: UserSummary.annotations({ description: "Who wrote it (for an activity: who did what it records)" }),
  body: Schema.String,
  image_url: Schema.NullOr(Schema.String),
  group_id: Schema.NullOr(RecordId).annotations({ description: "The group it was posted in; null: the community" }),
  kind: FeedPostKind,
  activity: Schema.NullOr(FeedActivity).annotations({ description: "Set on `activity` records only" }),
  like_count: Schema.Int,
  comment_count: Schema.Int.annotations({ description: "Comments not deleted (hidden ones included)" }),
  liked_by_me: Schema.Boolean,
  is_hidden: Schema.Boolean.annotations({
    description: "Hidden by a moderator: only its author and admins see it"
  }),
  created_at: Schema.DateTimeUtc
}) {}

/** `POST /api/v2/feed/posts`. */
export const CreateFeedPost = Schema.Struct({
  body: FeedText(FEED_POST_BODY_MAX).annotations({ description: "1 to 5000 characters, trimmed" }),
  group_id: Schema.optionalWith(RecordId, { exact: true }).annotations({
    description: "Post in this group (needs an active membership); an unknown group, or another community's, is a 422"
  }),
  image_url: Schema.optionalWith(Schema.NullOr(FeedImageUrl), { exact: true }).annotations({
    description: "An http(s) URL, at most 2000 characters"
  })
})
export type CreateFeedPost = typeof CreateFeedPost.Type

const GroupIdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId)).annotations({
  jsonSchema: { type: "integer", minimum: 1 }
})

/** `GET /api/v2/feed?cursor=&per_page=&group_id=`. */
export const FeedListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(100)).annotations({ description: "Default 20" }),
  group_id: Schema.optional(GroupIdParam).annotations({
    description: "Only this group's posts (a private group needs an active membership)"
  })
})
export type FeedListParams = typeof FeedListParams.Type
export const FEED_PER_PAGE_DEFAULT = 20

export const FeedPostIdPath = Schema.Struct({ id: PathId(FeedPostId) })

/** What a like or unlike answers: the caller's state and the post's count after it. */
export const FeedLikeState = Schema.Struct({
  post_id: FeedPostId,
  liked: Schema.Boolean,
  like_count: Schema.Int
})
export type FeedLikeState = typeof FeedLikeState.Type

export const FeedPostDeleted = Schema.Struct({ id: FeedPostId, deleted: Schema.Literal(true) })
