import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, AuthRequired, httpError, RateLimited } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { RateLimit } from "../http/RateLimit.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Authentication } from "./Authentication.js"
import {
  AuthAccountPendingApproval,
  AuthAccountSuspended,
  AuthInvalidCredentials,
  AuthRefreshSuperseded,
  AuthTokenExpired
} from "./IdentityErrors.js"
import { AuthUserView, Email, Language, Password, PersonName } from "./User.js"

export const LoginRequest = Schema.Struct({
  email: Schema.String,
  password: Schema.String,
  remember: Schema.optional(Schema.Literal("cookie")).annotations({
    description: "\"cookie\" also sets an HttpOnly session cookie (unsafe methods then need X-CSRF-Token)"
  })
})

/** Login and refresh answer in this shape, without the data envelope (decisions D4). */
export const TokenResponse = Schema.Struct({
  token: Schema.String,
  access_token: Schema.String,
  refresh_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int,
  refresh_expires_in: Schema.Int,
  user: AuthUserView
})
export type TokenResponse = typeof TokenResponse.Type

export const RegisterRequest = Schema.Struct({
  email: Email,
  password: Password,
  first_name: PersonName,
  last_name: PersonName,
  preferred_language: Schema.optional(Language)
})

export const Registered = Schema.Struct({ user: AuthUserView, requires_approval: Schema.Boolean })

export const CsrfTokenResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ csrf_token: Schema.String })
})

/** Spec "Limits": login and register, 30 per minute per IP. Login and its legacy alias share one budget. */
export class LoginRateLimit extends RateLimit<LoginRateLimit>()("LoginRateLimit", {
  limit: 30,
  window: "1 minute",
  scope: "ip"
}) {}
export class RegisterRateLimit extends RateLimit<RegisterRateLimit>()("RegisterRateLimit", {
  limit: 30,
  window: "1 minute",
  scope: "ip"
}) {}

const login = <const Name extends string>(name: Name, path: `/${string}`) =>
  HttpApiEndpoint.post(name, path)
    .setPayload(LoginRequest)
    .addSuccess(TokenResponse)
    .addError(httpError(AuthInvalidCredentials))
    .addError(httpError(AuthAccountPendingApproval))
    .addError(httpError(AuthAccountSuspended))
    .addError(httpError(RateLimited))
    .middleware(LoginRateLimit)

/** Register, log in, refresh and the CSRF token: no caller yet. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("register", "/api/v2/auth/register")
      .setPayload(RegisterRequest)
      .addSuccess(DataEnvelope(Registered), { status: 201 })
      .addError(httpError(AlreadyExists))
      .addError(httpError(RateLimited))
      .middleware(RegisterRateLimit)
  )
  .add(login("login", "/api/v2/auth/login"))
  .add(login("loginLegacyPath", "/api/auth/login").annotate(OpenApi.Deprecated, true))
  .add(
    HttpApiEndpoint.post("refresh", "/api/v2/auth/refresh")
      .setPayload(Schema.Struct({ refresh_token: Schema.String }))
      .addSuccess(TokenResponse)
      .addError(httpError(AuthRefreshSuperseded))
      .addError(httpError(AuthTokenExpired))
      .addError(httpError(RateLimited))
  )
  .add(
    HttpApiEndpoint.get("csrfToken", "/api/v2/csrf-token")
      .addSuccess(CsrfTokenResponse)
      .annotate(OpenApi.Description, "Also sets the CSRF cookie; cookie-session callers echo it in X-CSRF-Token")
  )
  // Per endpoint, after the rate limits, so that it wraps them: the tenant is resolved first (an endpoint's
  // middleware runs before its group's). Endpoints added below this line would have no tenant.
  .middlewareEndpoints(TenantMiddleware)
{}

/** Ends the caller's session: its access and refresh tokens stop working at once. */
export class SessionApi extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("logout", "/api/v2/auth/logout")
      .addSuccess(DataEnvelope(Schema.Struct({ logged_out: Schema.Literal(true) })))
      .addError(httpError(AuthRequired))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
