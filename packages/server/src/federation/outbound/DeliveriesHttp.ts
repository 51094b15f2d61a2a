import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { DeliveriesService } from "./DeliveriesService.js"

export const DeliveriesHttpLive = HttpApiBuilder.group(
  Api,
  "federationDeliveries",
  (handlers) =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveriesService
      return handlers
        .handle("list", ({ path, urlParams }) => deliveries.list(path.id, urlParams))
        .handle("retry", ({ path }) => Effect.map(deliveries.retry(path.id, path.deliveryId), ok))
    })
)
