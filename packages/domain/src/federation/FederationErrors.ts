import { ApiError } from "../http/ApiError.js"

/**
 * Federation is off for this request: the platform switch, the community's whitelist or the route's toggle
 * (decisions D13). 503 with `Retry-After: 3600`; the message never says which switch.
 */
export class FederationDisabled
  extends ApiError<FederationDisabled>()("FederationDisabled", "FEDERATION_DISABLED", 503)
{}

/** The API key (bearer, `X-API-Key`, `X-Federation-Platform-ID` or Basic) is unknown, revoked or expired. */
export class InvalidApiKey extends ApiError<InvalidApiKey>()("InvalidApiKey", "INVALID_API_KEY", 401) {}

/** The key signs its requests, and this one carries no `X-Federation-*` signature headers. */
export class SignatureRequired extends ApiError<SignatureRequired>()("SignatureRequired", "SIGNATURE_REQUIRED", 401) {}

/** The HMAC signature (or its nonce) does not hold. */
export class SignatureInvalid extends ApiError<SignatureInvalid>()("SignatureInvalid", "SIGNATURE_INVALID", 401) {}

/** `X-Federation-Timestamp` is not unix seconds or lies more than 300 s from now. */
export class TimestampInvalid extends ApiError<TimestampInvalid>()("TimestampInvalid", "TIMESTAMP_INVALID", 401) {}

/** A federation JWT that is malformed, tampered with, expired, unsigned, or whose key is gone. */
export class FederationTokenInvalid
  extends ApiError<FederationTokenInvalid>()("FederationTokenInvalid", "INVALID_TOKEN", 401)
{}

/** The nonce was already used with this key. */
export class ReplayDetected extends ApiError<ReplayDetected>()("ReplayDetected", "REPLAY_DETECTED", 409) {}

/** The key lacks the route's scope, or a write comes from a key without an active partner. */
export class PermissionDenied extends ApiError<PermissionDenied>()("PermissionDenied", "PERMISSION_DENIED", 403) {}

/** A tenant header names another community than the key's. */
export class TenantMismatch extends ApiError<TenantMismatch>()("TenantMismatch", "TENANT_MISMATCH", 403) {}

/** The API key is already revoked. */
export class AlreadyRevoked extends ApiError<AlreadyRevoked>()("AlreadyRevoked", "ALREADY_REVOKED", 409) {}

/** The partner or delivery is not in a state that allows this move (suspend, reactivate, retry). */
export class FederationStateConflict
  extends ApiError<FederationStateConflict>()("FederationStateConflict", "INVALID_STATE", 409)
{}

/** A member who has not opted in to federation cannot send credits to partners (decisions D16). */
export class FederationOptInRequired
  extends ApiError<FederationOptInRequired>()("FederationOptInRequired", "FEDERATION_OPT_IN_REQUIRED", 403)
{}

/** The partner is not `active`: no money moves with it (decisions D16). */
export class PartnerNotActive extends ApiError<PartnerNotActive>()("PartnerNotActive", "PARTNER_NOT_ACTIVE", 409) {}

/** The amount has no exact value in the partner's units (decisions D16): we never round silently. */
export class AmountNotRepresentable
  extends ApiError<AmountNotRepresentable>()("AmountNotRepresentable", "AMOUNT_NOT_REPRESENTABLE", 422)
{}

/** The currency code is taken by another community (decisions D16). */
export class CurrencyCodeTaken extends ApiError<CurrencyCodeTaken>()("CurrencyCodeTaken", "CURRENCY_CODE_TAKEN", 409) {}
