export * from "./AdminFeedApi.js"
export * from "./Comment.js"
export * from "./FeedApi.js"
export * from "./Post.js"
