import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ReviewsAdminService } from "./ReviewsAdminService.js"

export const AdminReviewsHttpLive = HttpApiBuilder.group(Api, "adminReviews", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* ReviewsAdminService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(admin.remove(path.id), ok))
      .handle("flag", ({ path }) => Effect.map(admin.flag(path.id), ok))
      .handle("hide", ({ path }) => Effect.map(admin.hide(path.id), ok))
  }))
