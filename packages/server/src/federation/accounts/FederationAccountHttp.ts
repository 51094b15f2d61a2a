import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentUser, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { FederationAccounts } from "./FederationAccounts.js"

/** `GET /api/v2/federation/account`: the calling member's federation account. */
export const FederationAccountHttpLive = HttpApiBuilder.group(
  Api,
  "federationAccount",
  (handlers) =>
    Effect.gen(function*() {
      const accounts = yield* FederationAccounts
      return handlers.handle("get", () =>
        Effect.flatMap(CurrentUser, (user) => Effect.map(accounts.accountOf(user.userId), ok)))
    })
).pipe(Layer.provide(FederationAccounts.Default))
