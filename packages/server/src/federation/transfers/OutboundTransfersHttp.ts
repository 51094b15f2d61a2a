import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { OutboundTransfers } from "./OutboundTransfers.js"

/** `POST|GET /api/v2/federation/transfers[/{id}]`: the caller's transfers to partners' members (decisions D16). */
export const OutboundTransfersHttpLive = HttpApiBuilder.group(
  Api,
  "federationTransfers",
  (handlers) =>
    Effect.gen(function*() {
      const transfers = yield* OutboundTransfers
      return handlers
        .handle(
          "create",
          ({ headers, payload }) => Effect.map(transfers.create(payload, headers["idempotency-key"]), ok)
        )
        .handle("list", ({ urlParams }) => transfers.list(urlParams))
        .handle("get", ({ path }) => Effect.map(transfers.get(path.id), ok))
    })
)
