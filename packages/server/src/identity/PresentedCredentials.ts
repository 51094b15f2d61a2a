import { HttpServerRequest } from "@effect/platform"
import { type Actor, AuthRequired, CurrentTenant, SESSION_COOKIE, type Tenant } from "@timebank/domain"
import { Effect, FiberRef, Option } from "effect"
import { IdentityService } from "./IdentityService.js"

/** The caller that the request's credentials resolved to, so the Authentication middleware need not look again. */
interface Resolved {
  readonly kind: "bearer" | "session"
  readonly credential: string
  readonly actor: Actor
}

/** Set once per request (each request runs on its own fiber) by {@link PresentedCredentials.check}. */
const resolvedCaller = FiberRef.unsafeMake<Option.Option<Resolved>>(Option.none())

/** The caller already resolved for this very credential in this request, if any. */
export const resolvedFor = (kind: Resolved["kind"], credential: string): Effect.Effect<Option.Option<Actor>> =>
  Effect.map(
    FiberRef.get(resolvedCaller),
    Option.flatMap((r) => (r.kind === kind && r.credential === credential ? Option.some(r.actor) : Option.none()))
  )

const BEARER = /^Bearer +(\S+) *$/i

const malformed = new AuthRequired({ message: "The Authorization header must be `Bearer <token>`" })

/**
 * Credentials sent with a request must be good in the request's community, whatever the route — public reads
 * included (decisions D4): a token of another community, an expired or unknown one is 401, never an anonymous 200.
 * The tenant middleware runs this right after resolving the tenant.
 */
export class PresentedCredentials extends Effect.Service<PresentedCredentials>()("PresentedCredentials", {
  effect: Effect.gen(function*() {
    const identity = yield* IdentityService

    const remember = (kind: Resolved["kind"], credential: string) => (actor: Actor) =>
      FiberRef.set(resolvedCaller, Option.some({ kind, credential, actor }))

    const bearer = (token: string) => Effect.flatMap(identity.authenticateBearer(token), remember("bearer", token))
    const session = (cookie: string) => Effect.flatMap(identity.sessionCaller(cookie), remember("session", cookie))

    /** The check in `tenant`; a request without credentials (most public reads) costs no lookup at all. */
    const checkIn = (tenant: Tenant): Effect.Effect<void, AuthRequired, HttpServerRequest.HttpServerRequest> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const authorization = request.headers["authorization"]
        if (authorization !== undefined && authorization !== "") {
          const token = BEARER.exec(authorization)?.[1]
          if (token === undefined) return Effect.fail(malformed)
          return Effect.provideService(bearer(token), CurrentTenant, tenant)
        }
        if (request.headers["cookie"] === undefined) return Effect.void
        const cookie = request.cookies[SESSION_COOKIE]
        if (cookie === undefined || cookie === "") return Effect.void
        return Effect.provideService(session(cookie), CurrentTenant, tenant)
      })

    const check: Effect.Effect<void, AuthRequired, CurrentTenant | HttpServerRequest.HttpServerRequest> = Effect
      .flatMap(CurrentTenant, checkIn)

    return { check, checkIn } as const
  })
}) {}
