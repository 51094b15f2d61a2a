import { SqlClient } from "@effect/sql"
import {
  type Actor,
  AlreadyExists,
  AuthAccountPendingApproval,
  AuthAccountSuspended,
  AuthInvalidCredentials,
  AuthRefreshSuperseded,
  AuthRequired,
  AuthTokenExpired,
  CsrfTokenMismatch,
  CurrentTenant,
  DomainEvents,
  type Language,
  type Tenant,
  type TokenResponse
} from "@timebank/domain"
import { Effect, Option, Redacted } from "effect"
import { jwtVerify } from "jose"
import { timingSafeEqual } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import { Outbox } from "../platform/Outbox.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { PLATFORM_TENANT_SLUG, TenantDirectory } from "../tenancy/TenantDirectory.js"
import { LoginThrottle } from "./LoginThrottle.js"
import { decoyHash, hashPassword, verifyPassword } from "./Password.js"
import { type CallerRow, SessionRepo } from "./SessionRepo.js"
import {
  ACCESS_TOKEN_SECONDS,
  hashToken,
  looksLikeJwt,
  newToken,
  REFRESH_GRACE_MILLIS,
  REFRESH_TOKEN_SECONDS
} from "./Tokens.js"
import { canSignIn, toActor, toAuthUser, type UserRow } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

export interface RegisterInput {
  readonly email: string
  readonly password: string
  readonly first_name: string
  readonly last_name: string
  readonly preferred_language?: Language | undefined
}

export interface LoginInput {
  readonly email: string
  readonly password: string
  readonly remember?: "cookie" | undefined
}

export interface SignedIn {
  readonly tokens: TokenResponse
  /** Set when the client asked for a cookie session. */
  readonly sessionCookie: Option.Option<string>
}

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"])

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/** What a cookie-authenticated request shows to prove it comes from our client. */
export interface CsrfEvidence {
  readonly method: string
  readonly csrfHeader: string | undefined
  readonly csrfCookie: string | undefined
}

/** A cookie session's unsafe request must echo the CSRF cookie in `X-CSRF-Token` (decisions D4). */
export const csrfChecked = (actor: Actor, request: CsrfEvidence): Effect.Effect<Actor, CsrfTokenMismatch> =>
  UNSAFE_METHODS.has(request.method) && !sameSecret(request.csrfHeader ?? "", request.csrfCookie ?? "")
    ? Effect.fail(new CsrfTokenMismatch({ message: "Send the CSRF token from GET /api/v2/csrf-token in X-CSRF-Token" }))
    : Effect.succeed(actor)

/** Registration, login, token rotation and resolving the caller of a request (decisions D4). */
export class IdentityService extends Effect.Service<IdentityService>()("IdentityService", {
  dependencies: [UserRepo.Default, SessionRepo.Default, LoginThrottle.Default, Outbox.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UserRepo
    const sessions = yield* SessionRepo
    const throttle = yield* LoginThrottle
    const outbox = yield* Outbox
    const tenants = yield* TenantDirectory
    const config = yield* AppConfig
    const legacySecret = Option.map(config.legacyJwtSecret, (s) => new TextEncoder().encode(Redacted.value(s)))

    const register = Effect.fn("Identity.register")(function*(input: RegisterInput) {
      const tenant = yield* CurrentTenant
      const requiresApproval = tenant.settings.registration_requires_approval
      if (yield* users.emailTaken(input.email)) {
        return yield* new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })
      }
      const passwordHash = yield* hashPassword(input.password)
      const created = yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* users.insert({
          email: input.email,
          passwordHash,
          firstName: input.first_name,
          lastName: input.last_name,
          role: "member",
          status: requiresApproval ? "pending" : "active",
          isApproved: !requiresApproval,
          preferredLanguage: input.preferred_language ?? tenant.settings.default_language
        })
        if (Option.isNone(row)) {
          return yield* new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })
        }
        yield* outbox.append(
          new DomainEvents.UserRegistered({
            user_id: row.value.id,
            email: row.value.email,
            first_name: row.value.first_name,
            last_name: row.value.last_name,
            requires_approval: requiresApproval
          })
        )
        return row.value
      })).pipe(dieOnSqlError)
      return { user: toAuthUser(created), requires_approval: requiresApproval }
    })

    const tokensFor = (row: UserRow, sessionId: number) =>
      Effect.gen(function*() {
        const access = newToken()
        const refresh = newToken()
        yield* sessions.issue(
          sessionId,
          { hash: hashToken(access), seconds: ACCESS_TOKEN_SECONDS },
          { hash: hashToken(refresh), seconds: REFRESH_TOKEN_SECONDS }
        )
        return {
          token: access,
          access_token: access,
          refresh_token: refresh,
          token_type: "Bearer" as const,
          expires_in: ACCESS_TOKEN_SECONDS,
          refresh_expires_in: REFRESH_TOKEN_SECONDS,
          user: toAuthUser(row)
        }
      })

    const login = Effect.fn("Identity.login")(function*(input: LoginInput, ip: string) {
      yield* throttle.check(input.email, ip)
      const found = yield* users.findByEmail(input.email)
      // Unknown e-mails cost a full verification too, so timing does not tell which e-mails have accounts.
      const valid = yield* verifyPassword(
        input.password,
        Option.match(found, { onNone: () => undefined, onSome: (u) => u.password_hash ?? undefined }) ??
          (yield* decoyHash)
      )
      if (Option.isNone(found) || !valid) {
        yield* throttle.recordFailure(input.email, ip)
        return yield* new AuthInvalidCredentials({ message: "E-mail or password is wrong" })
      }
      const user = found.value
      if (user.status === "suspended" || user.status === "banned") {
        return yield* new AuthAccountSuspended({ message: "This account is suspended" })
      }
      if (!canSignIn(user)) {
        return yield* new AuthAccountPendingApproval({ message: "This account is waiting for approval" })
      }
      yield* throttle.clear(input.email)
      const cookie = input.remember === "cookie" ? Option.some(newToken()) : Option.none<string>()
      const tokens = yield* sql.withTransaction(Effect.gen(function*() {
        const sessionId = yield* sessions.create({
          tenantId: user.tenant_id,
          userId: user.id,
          kind: "login",
          impersonatorId: null,
          cookieTokenHash: Option.getOrNull(Option.map(cookie, hashToken)),
          lifetimeSeconds: REFRESH_TOKEN_SECONDS
        })
        yield* users.markSignedIn(user.id)
        return yield* tokensFor(user, sessionId)
      })).pipe(dieOnSqlError)
      return { tokens, sessionCookie: cookie } satisfies SignedIn
    })

    const refresh = Effect.fn("Identity.refresh")(function*(refreshToken: string) {
      const tenant = yield* CurrentTenant
      const hash = hashToken(refreshToken)
      const expired = new AuthTokenExpired({ message: "The refresh token is no longer valid; log in again" })
      const found = yield* sessions.findRefresh(hash)
      if (Option.isNone(found) || found.value.expired || found.value.session_revoked) return yield* expired
      const sessionId = found.value.session_id
      const reused = (consumedAt: Date) =>
        Date.now() - consumedAt.getTime() <= REFRESH_GRACE_MILLIS
          ? Effect.fail(new AuthRefreshSuperseded({ message: "This refresh token was just used; use the newer one" }))
          : Effect.zipRight(sessions.revoke(sessionId), Effect.fail(expired))
      if (found.value.consumed_at !== null) return yield* reused(found.value.consumed_at)
      const user = yield* sessions.userBySession(sessionId)
      if (Option.isNone(user) || user.value.tenant_id !== tenant.id || !canSignIn(user.value)) {
        return yield* expired
      }
      return yield* sql.withTransaction(Effect.gen(function*() {
        // Two requests racing with one token: exactly one rotates, the other is told it was superseded.
        if (!(yield* sessions.consumeRefresh(hash))) return yield* reused(new Date())
        yield* sessions.extend(sessionId, REFRESH_TOKEN_SECONDS)
        return yield* tokensFor(user.value, sessionId)
      })).pipe(dieOnSqlError)
    })

    const logout = Effect.fn("Identity.logout")(function*(actor: Actor) {
      if (actor.sessionId !== null) yield* sessions.revoke(actor.sessionId)
    })

    const unauthenticated = new AuthRequired({ message: "Authentication required" })

    /** The caller of the current tenant, or super-admins of the platform acting in it. */
    const admit = (row: CallerRow) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const homeTenantSlug = yield* homeSlugOf(row, tenant)
        const platformAdmin = (row.is_super_admin || row.is_god) && homeTenantSlug === PLATFORM_TENANT_SLUG
        if (!canSignIn(row) || (row.tenant_id !== tenant.id && !platformAdmin)) {
          return yield* unauthenticated
        }
        return toActor(row, tenant.id, { id: row.session_id, impersonatorId: row.impersonator_id, homeTenantSlug })
      })

    /** The slug of the caller's own community: the addressed one, or (a visiting super-admin) read from tenancy. */
    const homeSlugOf = (row: CallerRow, tenant: Tenant) =>
      row.tenant_id === tenant.id
        ? Effect.succeed(tenant.slug)
        : Effect.map(tenants.findById(row.tenant_id), Option.match({ onNone: () => "", onSome: (home) => home.slug }))

    const orUnauthenticated = <A, E, R>(lookup: Effect.Effect<Option.Option<A>, E, R>) =>
      Effect.flatMap(lookup, Option.match({ onNone: () => Effect.fail(unauthenticated), onSome: Effect.succeed }))

    const legacyUser = (token: string) =>
      Option.match(legacySecret, {
        onNone: () => Effect.fail(unauthenticated),
        onSome: (secret) =>
          Effect.tryPromise({
            try: () => jwtVerify(token, secret, { algorithms: ["HS256"], requiredClaims: ["exp"] }),
            // Bad signature, `alg: none`, other algorithms, expiry: all simply not a valid credential.
            catch: () => unauthenticated
          }).pipe(
            Effect.flatMap(({ payload }) => {
              const userId = Number(payload["user_id"])
              const tenantId = Number(payload["tenant_id"])
              if (!Number.isSafeInteger(userId) || userId <= 0) return Effect.fail(unauthenticated)
              return orUnauthenticated(sessions.userById(userId)).pipe(
                Effect.filterOrFail((row) => row.tenant_id === tenantId, () => unauthenticated)
              )
            })
          )
      })

    const authenticateBearer = (token: string) =>
      Effect.gen(function*() {
        if (token === "") return yield* unauthenticated
        const row = looksLikeJwt(token)
          ? yield* legacyUser(token)
          : yield* orUnauthenticated(sessions.callerByAccessToken(hashToken(token)))
        return yield* admit(row)
        // Every authenticated request runs this: no stack trace captured for the span (it costs a `new Error()`).
      }).pipe(Effect.withSpan("Identity.authenticateBearer", { captureStackTrace: false }))

    /** The caller of a session cookie, without the CSRF check (which only unsafe methods need). */
    const sessionCaller = (cookieToken: string) =>
      Effect.gen(function*() {
        if (cookieToken === "") return yield* unauthenticated
        return yield* admit(yield* orUnauthenticated(sessions.callerBySessionCookie(hashToken(cookieToken))))
      }).pipe(Effect.withSpan("Identity.sessionCaller", { captureStackTrace: false }))

    /** Cookie sessions must prove the request comes from our client: the CSRF header echoes the CSRF cookie. */
    const authenticateSession = (
      cookieToken: string,
      request: CsrfEvidence
    ) => Effect.flatMap(sessionCaller(cookieToken), (actor) => csrfChecked(actor, request))

    return { register, login, refresh, logout, authenticateBearer, authenticateSession, sessionCaller } as const
  })
}) {}
