import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ReviewsService } from "./ReviewsService.js"

export const ReviewsHttpLive = HttpApiBuilder.group(Api, "reviews", (handlers) =>
  Effect.gen(function*() {
    const reviews = yield* ReviewsService
    return handlers
      .handle("create", ({ payload }) => Effect.map(reviews.create(payload), ok))
      .handle("list", ({ path, urlParams }) => reviews.list(path, urlParams))
  }))
