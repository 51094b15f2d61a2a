import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { setResponseHeaders } from "../../platform/ResponseHeaders.js"
import { CreditCommonsNode } from "./CreditCommonsNode.js"

/** Answers `body`, with the `cc-node-trace` header Komunitin sends with its answers. */
const traced = <A>(answer: { readonly body: A; readonly trace: string }) =>
  Effect.as(setResponseHeaders({ "cc-node-trace": answer.trace }), answer.body)

/** `/api/v1/federation/{CODE}/cc/…`: our Credit Commons node (decisions D16). */
export const CreditCommonsHttpLive = HttpApiBuilder.group(Api, "creditCommons", (handlers) =>
  Effect.gen(function*() {
    const node = yield* CreditCommonsNode
    return handlers
      .handle("welcome", ({ headers, path }) => Effect.flatMap(node.welcome(path.code, headers), traced))
      .handle("relay", ({ headers, path, payload }) => Effect.flatMap(node.relay(path.code, headers, payload), traced))
      .handle(
        "account",
        ({ headers, path, urlParams }) => Effect.flatMap(node.account(path.code, headers, urlParams.acc_path), traced)
      )
      .handle("transition", ({ headers, path }) => node.transition(path.code, headers, path.uuid))
  })).pipe(
    // SecretBox (through PartnerDirectory) reads its key at start: a missing one is a defect of the deployment.
    Layer.provide(CreditCommonsNode.Default.pipe(Layer.orDie))
  )
