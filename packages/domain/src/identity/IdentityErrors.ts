import { ApiError } from "../http/ApiError.js"

export class AuthInvalidCredentials
  extends ApiError<AuthInvalidCredentials>()("AuthInvalidCredentials", "AUTH_INVALID_CREDENTIALS", 401)
{}
export class AuthAccountPendingApproval
  extends ApiError<AuthAccountPendingApproval>()("AuthAccountPendingApproval", "AUTH_ACCOUNT_PENDING_APPROVAL", 403)
{}
export class AuthAccountSuspended
  extends ApiError<AuthAccountSuspended>()("AuthAccountSuspended", "AUTH_ACCOUNT_SUSPENDED", 403)
{}
/** A refresh token used again within the grace window: another request of the same client won the rotation. */
export class AuthRefreshSuperseded
  extends ApiError<AuthRefreshSuperseded>()("AuthRefreshSuperseded", "AUTH_REFRESH_SUPERSEDED", 409)
{}
/** The refresh token expired, was revoked, or was replayed after the grace window (the family is revoked). */
export class AuthTokenExpired extends ApiError<AuthTokenExpired>()("AuthTokenExpired", "AUTH_TOKEN_EXPIRED", 401) {}
export class CsrfTokenMismatch extends ApiError<CsrfTokenMismatch>()("CsrfTokenMismatch", "CSRF_TOKEN_MISMATCH", 403) {}
/** No password reset token of this community matches (unknown, mistyped, or issued in another community). */
export class PasswordResetTokenInvalid
  extends ApiError<PasswordResetTokenInvalid>()("PasswordResetTokenInvalid", "RESET_TOKEN_INVALID", 422)
{}
/** The reset token was used already, or a newer reset (or a password change) retired it. */
export class PasswordResetTokenUsed
  extends ApiError<PasswordResetTokenUsed>()("PasswordResetTokenUsed", "RESET_TOKEN_USED", 422)
{}
/** The reset token's lifetime is over (60 minutes for a member's own request, 24 hours for admin-sent links). */
export class PasswordResetTokenExpired
  extends ApiError<PasswordResetTokenExpired>()("PasswordResetTokenExpired", "RESET_TOKEN_EXPIRED", 422)
{}
