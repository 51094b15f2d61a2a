import { HttpServerRequest } from "@effect/platform"
import { Authentication, CSRF_COOKIE, CSRF_HEADER, CurrentTenant, OptionalAuthentication } from "@timebank/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { noteActor } from "../platform/AuditTrail.js"
import { csrfChecked, IdentityService } from "./IdentityService.js"
import { resolvedFor } from "./PresentedCredentials.js"

/**
 * The tenant middleware runs before this one (groups add it last), so `CurrentTenant` is present at run time;
 * middleware signatures cannot say so, hence the optional read.
 */
const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) =>
  Effect.flatMap(Effect.serviceOption(CurrentTenant), (tenant) =>
    Option.isSome(tenant)
      ? Effect.provideService(effect, CurrentTenant, tenant.value)
      : Effect.die(new Error("Authentication runs only behind the tenant middleware")))

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const identity = yield* IdentityService
    // The tenant middleware has usually resolved these credentials already (PresentedCredentials): reuse that.
    const bearer = (token: string) =>
      Effect.flatMap(
        resolvedFor("bearer", token),
        (known) => Option.isSome(known) ? Effect.succeed(known.value) : inTenant(identity.authenticateBearer(token))
      )
    const session = (cookie: string) =>
      Effect.flatMap(
        resolvedFor("session", cookie),
        (known) => Option.isSome(known) ? Effect.succeed(known.value) : inTenant(identity.sessionCaller(cookie))
      )
    return Authentication.of({
      bearer: (token) => Effect.tap(bearer(Redacted.value(token)), noteActor),
      session: (cookie) =>
        Effect.flatMap(
          session(Redacted.value(cookie)),
          (actor) =>
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
              csrfChecked(actor, {
                method: request.method,
                csrfHeader: request.headers[CSRF_HEADER],
                csrfCookie: request.cookies[CSRF_COOKIE]
              }))
        ).pipe(Effect.tap(noteActor))
    })
  })
)

/** The same checks; when they fail, the request goes on without a caller (routes open to anonymous callers). */
export const OptionalAuthenticationLive = Layer.effect(
  OptionalAuthentication,
  Effect.map(Authentication, (authenticate) => OptionalAuthentication.of(authenticate))
).pipe(Layer.provide(AuthenticationLive))
