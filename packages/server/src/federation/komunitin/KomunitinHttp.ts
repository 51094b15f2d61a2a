import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect } from "effect"
import { asCaller } from "../transactions/FederatedTransactions.js"
import { KomunitinReads } from "./KomunitinReads.js"
import { KomunitinTransfers } from "./KomunitinTransfers.js"
import type { KomunitinTransferRow } from "./KomunitinTransfersRepo.js"

/** The contract declares 201; a repeat of an earlier transfer answers 200 (decisions D16). */
const answerOkInstead = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setStatus(response, 200))
)

const originalUrl = Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.originalUrl)

/** Komunitin's JSON:API at `/api/v1/federation/{CODE}` (decisions D16). */
export const KomunitinHttpLive = HttpApiBuilder.group(
  Api,
  "komunitin",
  (handlers) =>
    Effect.gen(function*() {
      const reads = yield* KomunitinReads
      const transfers = yield* KomunitinTransfers

      /** One transfer as a JSON:API document. */
      const one = (code: string) => <E, R>(row: Effect.Effect<KomunitinTransferRow, E, R>) =>
        Effect.gen(function*() {
          const resource = yield* transfers.resourceOf(code)
          return { data: resource(yield* row) }
        })

      return handlers
        .handle("currency", ({ path }) => Effect.map(reads.currency(path.code), (data) => ({ data })))
        .handle("account", ({ path }) => Effect.map(reads.account(path.code, path.id), (data) => ({ data })))
        .handle("accounts", ({ path, urlParams }) =>
          asCaller(Effect.flatMap(originalUrl, (url) =>
            reads.byCodes(path.code, urlParams, url))))
        .handle("transfers", ({ path, urlParams }) =>
          asCaller(Effect.gen(function*() {
            const { links, rows } = yield* transfers.list(urlParams, yield* originalUrl)
            const resource = yield* transfers.resourceOf(path.code)
            return { links, data: rows.map(resource) }
          })))
        .handle("transfer", ({ path }) =>
          asCaller(one(path.code)(transfers.get(path.id))))
        .handle("createTransfer", ({ path, payload }) =>
          asCaller(Effect.gen(function*() {
            const { created, row } = yield* transfers.create(payload)
            if (!created) yield* answerOkInstead
            return yield* one(path.code)(Effect.succeed(row))
          })))
        .handle("updateTransfer", ({ path, payload }) => asCaller(one(path.code)(transfers.update(path.id, payload))))
    })
)
