import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { FederatedBrowse } from "./FederatedBrowse.js"

/** `GET /api/v2/federation/{events,listings,groups}`: members browse partners' shared records. */
export const FederatedBrowseHttpLive = HttpApiBuilder.group(
  Api,
  "federatedBrowse",
  (handlers) =>
    Effect.gen(function*() {
      const browse = yield* FederatedBrowse
      return handlers
        .handle("events", ({ urlParams }) => browse.events(urlParams))
        .handle("listings", ({ urlParams }) => browse.listings(urlParams))
        .handle("groups", ({ urlParams }) => browse.groups(urlParams))
    })
).pipe(Layer.provide(FederatedBrowse.Default))
