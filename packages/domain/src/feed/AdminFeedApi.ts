import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { CalendarDate } from "../http/CalendarDate.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { BooleanParam, FilterId, ModerationSearch, ModerationStateConflict } from "../moderation/ModerationParams.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { FeedComment, FeedCommentDeleted, FeedCommentIdPath } from "./Comment.js"
import { FeedPost, FeedPostDeleted, FeedPostIdPath } from "./Post.js"

/** `GET /api/v2/admin/feed/posts`: every post not deleted, hidden ones included, newest first. */
export const AdminFeedPostsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  author_id: Schema.optional(FilterId).annotations({ description: "Only this member's posts" }),
  group_id: Schema.optional(FilterId).annotations({ description: "Only this group's posts" }),
  is_hidden: Schema.optional(BooleanParam).annotations({ description: "Only hidden posts, or only visible ones" }),
  search: Schema.optional(ModerationSearch).annotations({ description: "Part of the post's text, case-insensitive" }),
  from: Schema.optional(CalendarDate).annotations({
    description: "Posts written on or after this day (YYYY-MM-DD, the community's time zone)"
  }),
  to: Schema.optional(CalendarDate).annotations({
    description: "Posts written on or before this day (YYYY-MM-DD, the community's time zone)"
  })
})
export type AdminFeedPostsParams = typeof AdminFeedPostsParams.Type

/** `GET /api/v2/admin/comments`: every comment not deleted, hidden ones included, newest first. */
export const AdminCommentsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  post_id: Schema.optional(FilterId).annotations({ description: "Only the comments on this post" }),
  author_id: Schema.optional(FilterId).annotations({ description: "Only this member's comments" }),
  is_hidden: Schema.optional(BooleanParam).annotations({ description: "Only hidden comments, or only visible ones" })
})
export type AdminCommentsParams = typeof AdminCommentsParams.Type

const Count = Schema.Int.pipe(Schema.nonNegative())

/** `GET /api/v2/admin/feed/stats`: the community's feed, counted live (deleted posts and comments left out). */
export const FeedStats = Schema.Struct({
  posts: Count.annotations({ description: "Posts, members' and activity records, hidden ones included" }),
  hidden_posts: Count.annotations({ description: "Posts hidden by a moderator" }),
  comments: Count.annotations({ description: "Comments, hidden ones included" }),
  hidden_comments: Count.annotations({ description: "Comments hidden by a moderator" }),
  likes: Count.annotations({ description: "Likes on the posts counted above" }),
  posts_last_7_days: Count.annotations({ description: "Posts written in the last 7 × 24 hours" }),
  comments_last_7_days: Count.annotations({ description: "Comments written in the last 7 × 24 hours" })
})
export type FeedStats = typeof FeedStats.Type

const POSTS = "/api/v2/admin/feed/posts"
const COMMENTS = "/api/v2/admin/comments"

/** Feed moderation: posts (decisions D14a, D17 "Moderation"); not gated on `feed`. */
export class AdminFeedApi extends HttpApiGroup.make("adminFeed")
  .annotate(OpenApi.Title, "Admin: feed")
  .annotate(
    OpenApi.Description,
    "Feed moderation: every post, hidden ones included; hiding one takes it out of every member's view except its " +
      "author's at once"
  )
  .add(
    HttpApiEndpoint.get("list", POSTS)
      .annotate(OpenApi.Summary, "List feed posts")
      .setUrlParams(AdminFeedPostsParams)
      .addSuccess(OffsetPage(FeedPost))
      .annotate(OpenApi.Description, "Posts not deleted, newest first; filters author, group, hidden, text, days")
  )
  .add(
    HttpApiEndpoint.get("stats", "/api/v2/admin/feed/stats")
      .annotate(OpenApi.Summary, "Feed statistics")
      .addSuccess(DataEnvelope(FeedStats))
      .annotate(OpenApi.Description, "Posts, comments and likes of the community, counted live; deleted ones left out")
  )
  .add(
    HttpApiEndpoint.get("get", `${POSTS}/:id`)
      .annotate(OpenApi.Summary, "Get a feed post")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedPost))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Any post of the community that is not deleted, hidden ones included")
  )
  .add(
    HttpApiEndpoint.del("delete", `${POSTS}/:id`)
      .annotate(OpenApi.Summary, "Delete a feed post")
      .annotate(AuditAction, "feed-post.deleted")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedPostDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the post for everyone, its author included")
  )
  .add(
    HttpApiEndpoint.post("hide", `${POSTS}/:id/hide`)
      .annotate(OpenApi.Summary, "Hide a feed post")
      .annotate(AuditAction, "feed-post.hidden")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedPost))
      .addError(httpError(NotFound))
      .addError(httpError(ModerationStateConflict))
      .annotate(
        OpenApi.Description,
        "Only its author and admins see it from now on; a hidden post takes no likes or comments. Hidden already " +
          "→ 409 `INVALID_STATE`"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** Feed moderation: comments (decisions D14a, D17 "Moderation"); not gated on `feed`. */
export class AdminCommentsApi extends HttpApiGroup.make("adminComments")
  .annotate(OpenApi.Title, "Admin: comments")
  .annotate(OpenApi.Description, "Comments on feed posts, hidden ones included")
  .add(
    HttpApiEndpoint.get("list", COMMENTS)
      .annotate(OpenApi.Summary, "List comments")
      .setUrlParams(AdminCommentsParams)
      .addSuccess(OffsetPage(FeedComment))
      .annotate(OpenApi.Description, "Comments not deleted, newest first; filters post, author, hidden")
  )
  .add(
    HttpApiEndpoint.get("get", `${COMMENTS}/:id`)
      .annotate(OpenApi.Summary, "Get a comment")
      .setPath(FeedCommentIdPath)
      .addSuccess(DataEnvelope(FeedComment))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Any comment of the community that is not deleted, hidden ones included")
  )
  .add(
    HttpApiEndpoint.del("delete", `${COMMENTS}/:id`)
      .annotate(OpenApi.Summary, "Delete a comment")
      .annotate(AuditAction, "comment.deleted")
      .setPath(FeedCommentIdPath)
      .addSuccess(DataEnvelope(FeedCommentDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the comment; its post counts one comment fewer")
  )
  .add(
    HttpApiEndpoint.post("hide", `${COMMENTS}/:id/hide`)
      .annotate(OpenApi.Summary, "Hide a comment")
      .annotate(AuditAction, "comment.hidden")
      .setPath(FeedCommentIdPath)
      .addSuccess(DataEnvelope(FeedComment))
      .addError(httpError(NotFound))
      .addError(httpError(ModerationStateConflict))
      .annotate(
        OpenApi.Description,
        "Only its author and admins see it from now on (it still counts on its post); hidden already → 409 " +
          "`INVALID_STATE`"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
