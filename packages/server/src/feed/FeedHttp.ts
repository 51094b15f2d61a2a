import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { FeedCommentsService } from "./FeedCommentsService.js"
import { FeedService } from "./FeedService.js"

export const FeedHttpLive = HttpApiBuilder.group(Api, "feed", (handlers) =>
  Effect.gen(function*() {
    const feed = yield* FeedService
    const comments = yield* FeedCommentsService
    return handlers
      .handle("create", ({ payload }) => Effect.map(feed.create(payload), ok))
      .handle("list", ({ urlParams }) => feed.list(urlParams))
      .handle("get", ({ path }) => Effect.map(feed.get(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(feed.remove(path.id), ok))
      .handle("like", ({ path }) => Effect.map(feed.like(path.id), ok))
      .handle("unlike", ({ path }) => Effect.map(feed.unlike(path.id), ok))
      .handle("comments", ({ path, urlParams }) => comments.list(path.id, urlParams))
      .handle("comment", ({ path, payload }) => Effect.map(comments.create(path.id, payload), ok))
      .handle("deleteComment", ({ path }) => Effect.map(comments.remove(path.id), ok))
  }))
