import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { FeedFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  CreateFeedComment,
  FeedComment,
  FeedCommentDeleted,
  FeedCommentIdPath,
  FeedCommentListParams
} from "./Comment.js"
import { CreateFeedPost, FeedLikeState, FeedListParams, FeedPost, FeedPostDeleted, FeedPostIdPath } from "./Post.js"

const FEED = "/api/v2/feed"
const POSTS = `${FEED}/posts`

const HIDDEN_RULE = "Hidden posts and comments are seen only by their author and admins; to anyone else they are 404"

/** The community feed: posts, likes and comments (decisions D14, D14a); gated on `feed`. */
export class FeedApi extends HttpApiGroup.make("feed")
  .annotate(OpenApi.Title, "Feed")
  .annotate(
    OpenApi.Description,
    "The community feed: members' posts (in the community or in a group), activity records, likes and comments. " +
      `${HIDDEN_RULE}. Every route answers 403 \`FEATURE_DISABLED\` when \`feed\` is off`
  )
  .add(
    HttpApiEndpoint.post("create", POSTS)
      .annotate(OpenApi.Summary, "Write a post")
      .setPayload(CreateFeedPost)
      .addSuccess(DataEnvelope(FeedPost), { status: 201 })
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "A post in the community, or in a group the caller is an active member of (403 otherwise; an unknown " +
          "group, or another community's, is a 422 on `group_id`)"
      )
  )
  .add(
    HttpApiEndpoint.get("list", FEED)
      .annotate(OpenApi.Summary, "Read the feed")
      .setUrlParams(FeedListParams)
      .addSuccess(CursorPage(FeedPost))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Newest first. Without `group_id`: the community's posts and those of the groups the caller is an active " +
          "member of. With `group_id`: that group's posts (unknown group 404; a private group needs an active " +
          "membership or an admin, else 403)"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${POSTS}/:id`)
      .annotate(OpenApi.Summary, "Get a post")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedPost))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A post the caller may read (a private group's: its members and admins)")
  )
  .add(
    HttpApiEndpoint.del("delete", `${POSTS}/:id`)
      .annotate(OpenApi.Summary, "Delete a post")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedPostDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "By its author, a community admin, or (in a group) the group's organisers")
  )
  .add(
    HttpApiEndpoint.post("like", `${POSTS}/:id/like`)
      .annotate(OpenApi.Summary, "Like a post")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedLikeState))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Idempotent: liking again changes nothing. A group's post is liked by its active members only"
      )
  )
  .add(
    HttpApiEndpoint.del("unlike", `${POSTS}/:id/like`)
      .annotate(OpenApi.Summary, "Take a like back")
      .setPath(FeedPostIdPath)
      .addSuccess(DataEnvelope(FeedLikeState))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Idempotent: without a like, nothing changes")
  )
  .add(
    HttpApiEndpoint.get("comments", `${POSTS}/:id/comments`)
      .annotate(OpenApi.Summary, "List a post's comments")
      .setPath(FeedPostIdPath)
      .setUrlParams(FeedCommentListParams)
      .addSuccess(CursorPage(FeedComment))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Oldest first, as a conversation reads")
  )
  .add(
    HttpApiEndpoint.post("comment", `${POSTS}/:id/comments`)
      .annotate(OpenApi.Summary, "Comment on a post")
      .setPath(FeedPostIdPath)
      .setPayload(CreateFeedComment)
      .addSuccess(DataEnvelope(FeedComment), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "A group's post is commented on by its active members only")
  )
  .add(
    HttpApiEndpoint.del("deleteComment", "/api/v2/comments/:id")
      .annotate(OpenApi.Summary, "Delete a comment")
      .setPath(FeedCommentIdPath)
      .addSuccess(DataEnvelope(FeedCommentDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "By its author, a community admin, or (on a group's post) the group's organisers"
      )
  )
  .middleware(FeedFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
