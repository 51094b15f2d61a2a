import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, AuthRequired, httpError, RateLimited } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { RateLimit } from "../http/RateLimit.js"
import { SignInTenant, TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Authentication } from "./Authentication.js"
import {
  AuthAccountPendingApproval,
  AuthAccountSuspended,
  AuthInvalidCredentials,
  AuthRefreshSuperseded,
  AuthTokenExpired,
  PasswordResetTokenExpired,
  PasswordResetTokenInvalid,
  PasswordResetTokenUsed
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

export const PasswordResetRequest = Schema.Struct({ email: Email })

/** The one answer to a reset request, whether or not the e-mail has an account (no account enumeration). */
export const PasswordResetAccepted = Schema.Struct({
  accepted: Schema.Literal(true).annotations({
    description: "Always true: a link is mailed only when an active account of this community has the e-mail"
  })
})

export const PasswordResetConfirm = Schema.Struct({
  token: Schema.String.pipe(
    Schema.minLength(1, { message: () => "is required" }),
    Schema.maxLength(256, { message: () => "is not a reset token" })
  ).annotations({ description: "The token of the reset e-mail" }),
  password: Password
})

export const PasswordResetDone = Schema.Struct({ password_changed: Schema.Literal(true) })

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
/** Spec "Limits": sensitive flows, 5 per minute per IP. Only asking for a link is limited (it sends e-mail). */
export class PasswordResetRateLimit extends RateLimit<PasswordResetRateLimit>()("PasswordResetRateLimit", {
  limit: 5,
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
  .annotate(OpenApi.Title, "Authentication")
  .annotate(
    OpenApi.Description,
    "Register, log in, refresh tokens, reset a password and get a CSRF token: a tenant is needed, no token"
  )
  .add(
    HttpApiEndpoint.post("register", "/api/v2/auth/register")
      .annotate(OpenApi.Summary, "Register an account")
      .annotate(
        OpenApi.Description,
        "Creates a member account in this community; `requires_approval` says whether an admin must approve it " +
          "before it can log in. An e-mail already registered here is 409 `ALREADY_EXISTS`"
      )
      .setPayload(RegisterRequest)
      .addSuccess(DataEnvelope(Registered), { status: 201 })
      .addError(httpError(AlreadyExists))
      .addError(httpError(RateLimited))
      .middleware(RegisterRateLimit)
  )
  .add(
    login("login", "/api/v2/auth/login")
      .annotate(OpenApi.Summary, "Log in")
      .annotate(
        OpenApi.Description,
        "Exchanges e-mail and password for an access token (send it as `Authorization: Bearer <token>`) and a " +
          "refresh token. 10 failures for one e-mail or one IP address within 5 minutes lock it (429 " +
          "`RATE_LIMITED`) until 5 minutes after the last one"
      )
  )
  .add(
    login("loginLegacyPath", "/api/auth/login")
      .annotate(OpenApi.Deprecated, true)
      .annotate(OpenApi.Summary, "Log in (legacy path)")
      .annotate(OpenApi.Description, "The same as `POST /api/v2/auth/login`, at the path of the first API version")
  )
  .add(
    HttpApiEndpoint.post("refresh", "/api/v2/auth/refresh")
      .annotate(OpenApi.Summary, "Refresh the tokens")
      .annotate(
        OpenApi.Description,
        "Exchanges a refresh token for a new access token and a new refresh token; the old refresh token stops " +
          "working (a client that sends it again at once gets 409 `AUTH_REFRESH_SUPERSEDED`)"
      )
      .setPayload(Schema.Struct({ refresh_token: Schema.String }))
      .addSuccess(TokenResponse)
      .addError(httpError(AuthRefreshSuperseded))
      .addError(httpError(AuthTokenExpired))
      .addError(httpError(RateLimited))
  )
  .add(
    HttpApiEndpoint.get("csrfToken", "/api/v2/csrf-token")
      .annotate(OpenApi.Summary, "Get a CSRF token")
      .addSuccess(CsrfTokenResponse)
      .annotate(OpenApi.Description, "Also sets the CSRF cookie; cookie-session callers echo it in X-CSRF-Token")
  )
  .add(
    HttpApiEndpoint.post("requestPasswordReset", "/api/v2/auth/password-reset")
      .setPayload(PasswordResetRequest)
      .addSuccess(DataEnvelope(PasswordResetAccepted), { status: 202 })
      .addError(httpError(RateLimited))
      .middleware(PasswordResetRateLimit)
      .annotate(OpenApi.Summary, "Ask for a password reset link")
      .annotate(
        OpenApi.Description,
        "Always 202 with the same body, whether or not the e-mail has an account, and before any account is looked " +
          "up. For an active account of this community, an e-mail with a single-use token valid for 60 minutes is " +
          "queued; the token is stored only as its SHA-256. 5 per minute per IP"
      )
  )
  .add(
    HttpApiEndpoint.post("confirmPasswordReset", "/api/v2/auth/password-reset/confirm")
      .setPayload(PasswordResetConfirm)
      .addSuccess(DataEnvelope(PasswordResetDone))
      .addError(httpError(PasswordResetTokenInvalid))
      .addError(httpError(PasswordResetTokenUsed))
      .addError(httpError(PasswordResetTokenExpired))
      .annotate(OpenApi.Summary, "Set a new password with a reset token")
      .annotate(
        OpenApi.Description,
        "Sets the new password (the rules of registration), uses the token up, and ends every session of the " +
          "account (its access and refresh tokens stop working). 422 on `token`: `RESET_TOKEN_INVALID` (unknown, " +
          "or of another community), `RESET_TOKEN_USED` (used, or replaced by a newer link), `RESET_TOKEN_EXPIRED`"
      )
  )
  // Per endpoint, after the rate limits, so that it wraps them: the tenant is resolved first (an endpoint's
  // middleware runs before its group's). Endpoints added below this line would have no tenant.
  .middlewareEndpoints(SignInTenant)
{}

/** Ends the caller's session: its access and refresh tokens stop working at once. */
export class SessionApi extends HttpApiGroup.make("session")
  .annotate(OpenApi.Title, "Session")
  .annotate(OpenApi.Description, "The caller's own session")
  .add(
    HttpApiEndpoint.post("logout", "/api/v2/auth/logout")
      .annotate(OpenApi.Summary, "Log out")
      .annotate(
        OpenApi.Description,
        "Ends the caller's session: its access and refresh tokens stop working at once"
      )
      .addSuccess(DataEnvelope(Schema.Struct({ logged_out: Schema.Literal(true) })))
      .addError(httpError(AuthRequired))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
