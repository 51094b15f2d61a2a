import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { requireModule } from "../../platform/FeatureGate.js"
import { PushService } from "./PushService.js"

/** The contract declares 201; a subscription the caller already had answers 200 (decisions D12). */
const answerOkInstead = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setStatus(response, 200))
)

const handlersOf = (name: "push" | "pushV2") =>
  HttpApiBuilder.group(Api, name, (handlers) =>
    Effect.gen(function*() {
      const push = yield* PushService
      return handlers
        .handle("vapidKey", () => Effect.map(push.vapidKey, ok))
        .handle("subscribe", ({ payload }) =>
          Effect.gen(function*() {
            // New subscriptions wait while the community has push off (decisions D17 "Modules").
            yield* requireModule("push")
            const { created, data } = yield* push.subscribe(payload)
            if (!created) yield* answerOkInstead
            return ok(data)
          }))
        .handle("unsubscribe", ({ payload }) => Effect.map(push.unsubscribe(payload), ok))
        .handle("status", () => Effect.map(push.status(), ok))
    }))

/** The push routes under `/api/push` and `/api/v2/push` (decisions D9). */
export const PushHttpLive = Layer.merge(handlersOf("push"), handlersOf("pushV2"))
