import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { FeedAdminService } from "./FeedAdminService.js"

export const AdminFeedHttpLive = HttpApiBuilder.group(Api, "adminFeed", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* FeedAdminService
    return handlers
      .handle("list", ({ urlParams }) => admin.listPosts(urlParams))
      .handle("stats", () => Effect.map(admin.stats(), ok))
      .handle("get", ({ path }) => Effect.map(admin.getPost(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(admin.deletePost(path.id), ok))
      .handle("hide", ({ path }) => Effect.map(admin.hidePost(path.id), ok))
  }))

export const AdminCommentsHttpLive = HttpApiBuilder.group(Api, "adminComments", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* FeedAdminService
    return handlers
      .handle("list", ({ urlParams }) => admin.listComments(urlParams))
      .handle("get", ({ path }) => Effect.map(admin.getComment(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(admin.deleteComment(path.id), ok))
      .handle("hide", ({ path }) => Effect.map(admin.hideComment(path.id), ok))
  }))
