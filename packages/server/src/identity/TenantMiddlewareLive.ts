import { HttpServerRequest } from "@effect/platform"
import { TenantMiddleware } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { noteTenant } from "../platform/AuditTrail.js"
import { tagRequestTenant } from "../platform/Logging.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { PresentedCredentials } from "./PresentedCredentials.js"

/**
 * The tenant of the request; then the credentials sent with it must belong there (PresentedCredentials). It lives
 * with identity because of that second step: tenancy only resolves the tenant.
 */
export const TenantMiddlewareLive = Layer.effect(
  TenantMiddleware,
  Effect.gen(function*() {
    const directory = yield* TenantDirectory
    const credentials = yield* PresentedCredentials
    return Effect.tap(
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => directory.resolve(request.headers)),
      (tenant) =>
        Effect.zipRight(
          Effect.zipRight(noteTenant(tenant.id), tagRequestTenant(tenant)),
          credentials.checkIn(tenant)
        )
    )
  })
)
