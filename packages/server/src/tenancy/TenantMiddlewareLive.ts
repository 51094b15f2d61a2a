import { HttpServerRequest } from "@effect/platform"
import { TenantMiddleware } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { TenantDirectory } from "./TenantDirectory.js"

export const TenantMiddlewareLive = Layer.effect(
  TenantMiddleware,
  Effect.gen(function*() {
    const directory = yield* TenantDirectory
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => directory.resolve(request.headers))
  })
)
