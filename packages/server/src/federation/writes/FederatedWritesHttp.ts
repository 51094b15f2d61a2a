import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { asCaller } from "../transactions/FederatedTransactions.js"
import { FederatedWrites } from "./FederatedWrites.js"

/** `POST /api/v1/federation/reviews|messages`, in the community of the calling key. */
export const FederationWritesHttpLive = HttpApiBuilder.group(
  Api,
  "federationWrites",
  (handlers) =>
    Effect.gen(function*() {
      const writes = yield* FederatedWrites
      return handlers
        .handle("review", ({ payload }) => asCaller(Effect.map(writes.review(payload), ok)))
        .handle("message", ({ payload }) => asCaller(Effect.map(writes.message(payload), ok)))
    })
)

/** `/api/v2/federation/messages`: the caller's messages from partners' members. */
export const FederatedMessagesHttpLive = HttpApiBuilder.group(
  Api,
  "federatedMessages",
  (handlers) =>
    Effect.gen(function*() {
      const writes = yield* FederatedWrites
      return handlers
        .handle("list", ({ urlParams }) => writes.inbox(urlParams))
        .handle("read", ({ path }) => Effect.map(writes.markRead(path.id), ok))
    })
)

export const FederatedWritesLive = Layer.mergeAll(FederationWritesHttpLive, FederatedMessagesHttpLive).pipe(
  Layer.provide(FederatedWrites.Default),
  Layer.orDie
)
