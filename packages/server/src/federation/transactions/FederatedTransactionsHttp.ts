import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { asCaller, FederatedTransactions } from "./FederatedTransactions.js"

/** The contract declares 201; a repeat of an earlier `external_id` answers 200 (decisions D13a). */
const answerOkInstead = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setStatus(response, 200))
)

export const FederatedTransactionsHttpLive = HttpApiBuilder.group(
  Api,
  "federationTransactions",
  (handlers) =>
    Effect.gen(function*() {
      const transactions = yield* FederatedTransactions
      return handlers
        .handle("create", ({ payload }) =>
          asCaller(Effect.gen(function*() {
            const { created, data } = yield* transactions.create(payload)
            if (!created) yield* answerOkInstead
            return ok(data)
          })))
        .handle("list", ({ urlParams }) => asCaller(transactions.list(urlParams)))
        .handle("get", ({ path }) => asCaller(Effect.map(transactions.get(path.id), ok)))
    })
)
