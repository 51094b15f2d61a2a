import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Schema } from "effect"
import { AuthRequired, httpError } from "../http/ApiError.js"
import { CsrfTokenMismatch } from "./IdentityErrors.js"
import { CurrentUser } from "./User.js"

export const SESSION_COOKIE = "tb_session"
export const CSRF_COOKIE = "tb_csrf"
export const CSRF_HEADER = "x-csrf-token"

/**
 * Resolves the caller from `Authorization: Bearer <token>` (an access token or a legacy JWT) or from the session
 * cookie; cookie requests must carry the CSRF token on unsafe methods. Provides `CurrentUser`.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(httpError(AuthRequired), httpError(CsrfTokenMismatch)),
  provides: CurrentUser,
  security: {
    bearer: HttpApiSecurity.bearer,
    session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE })
  }
}) {}

/**
 * The same credentials as {@link Authentication}, for routes anonymous callers may use too: a caller who sends
 * valid ones gets `CurrentUser`; anyone else (no credentials, or ones that do not authenticate) goes on anonymously,
 * so handlers read the caller with `Effect.serviceOption(CurrentUser)`.
 */
export class OptionalAuthentication extends HttpApiMiddleware.Tag<OptionalAuthentication>()("OptionalAuthentication", {
  optional: true,
  provides: CurrentUser,
  security: {
    bearer: HttpApiSecurity.bearer,
    session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE })
  }
}) {}
