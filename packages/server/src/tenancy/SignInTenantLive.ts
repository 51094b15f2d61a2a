import { HttpServerRequest } from "@effect/platform"
import { SignInTenant } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { TenantDirectory } from "./TenantDirectory.js"

/** The tenant of the sign-in routes, which ignore credentials sent along. */
export const SignInTenantLive = Layer.effect(
  SignInTenant,
  Effect.map(
    TenantDirectory,
    (directory) => Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => directory.resolve(request.headers))
  )
)
