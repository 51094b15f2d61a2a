import { HttpServerRequest } from "@effect/platform"
import { CurrentTenant, SignInTenant, TenantMiddleware } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { PresentedCredentials } from "../identity/PresentedCredentials.js"
import { TenantDirectory } from "./TenantDirectory.js"

const resolveTenant = (directory: TenantDirectory) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => directory.resolve(request.headers))

/** The tenant of the request; then the credentials sent with it must belong there (PresentedCredentials). */
export const TenantMiddlewareLive = Layer.effect(
  TenantMiddleware,
  Effect.gen(function*() {
    const directory = yield* TenantDirectory
    const credentials = yield* PresentedCredentials
    return Effect.tap(
      resolveTenant(directory),
      (tenant) => Effect.provideService(credentials.check, CurrentTenant, tenant)
    )
  })
)

/** The tenant of the sign-in routes, which ignore credentials sent along. */
export const SignInTenantLive = Layer.effect(SignInTenant, Effect.map(TenantDirectory, resolveTenant))
