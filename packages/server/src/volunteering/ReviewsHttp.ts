import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireModule } from "../platform/FeatureGate.js"
import { ReviewsService } from "./ReviewsService.js"

const reviewsOn = <A, E, R>(route: Effect.Effect<A, E, R>) => Effect.zipRight(requireModule("reviews"), route)

export const ReviewsHttpLive = HttpApiBuilder.group(Api, "reviews", (handlers) =>
  Effect.gen(function*() {
    const reviews = yield* ReviewsService
    return handlers
      // Reviews of organisations and of members are the `reviews` module (decisions D17).
      .handle("create", ({ payload }) => reviewsOn(Effect.map(reviews.create(payload), ok)))
      .handle("list", ({ path, urlParams }) => reviewsOn(reviews.list(path, urlParams)))
  }))
