import { Schema } from "effect"

/** A member wrote a post (activity records raise nothing: the event they record was raised already). */
export class FeedPostCreated extends Schema.TaggedClass<FeedPostCreated>()("FeedPostCreated", {
  post_id: Schema.Number,
  user_id: Schema.Number,
  group_id: Schema.NullOr(Schema.Number)
}) {}

/** A member commented on a post; `post_author_id` is who wrote the post. */
export class FeedCommentCreated extends Schema.TaggedClass<FeedCommentCreated>()("FeedCommentCreated", {
  comment_id: Schema.Number,
  post_id: Schema.Number,
  post_author_id: Schema.Number,
  user_id: Schema.Number,
  group_id: Schema.NullOr(Schema.Number)
}) {}
