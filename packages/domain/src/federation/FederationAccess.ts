import { HttpApiMiddleware } from "@effect/platform"
import { Context, Schema } from "effect"
import { AuthRequired, httpError, RateLimited } from "../http/ApiError.js"
import type { Tenant } from "../tenancy/Tenant.js"
import {
  FederationDisabled,
  FederationTokenInvalid,
  InvalidApiKey,
  PermissionDenied,
  ReplayDetected,
  SignatureInvalid,
  SignatureRequired,
  TenantMismatch,
  TimestampInvalid
} from "./FederationErrors.js"
import type { FederationScope, FederationToggle } from "./FederationScopes.js"

/** The partner calling `/api/v1/federation/*`, as its credentials name it. */
export interface FederationCallerShape {
  /**
   * The inbound API key presented (directly, by HMAC's platform id, or as the JWT's `key_id`); null for a Komunitin
   * server's EdDSA token (decisions D16), which names a partner by its pinned Stellar key, not a key of ours.
   */
  readonly keyId: number | null
  /** The key's community: federation requests take their tenant from the key, never from a header. */
  readonly tenant: Tenant
  /** The partner the key is bound to, if any; writes need one whose status is `active`. */
  readonly partnerId: number | null
  /** What this request may do: the key's scopes, narrowed by a JWT's `scope`. */
  readonly scopes: ReadonlyArray<FederationScope>
  readonly method: "api_key" | "hmac" | "jwt" | "komunitin_token"
}

export class FederationCaller extends Context.Tag("FederationCaller")<FederationCaller, FederationCallerShape>() {}

/**
 * What a federation route needs (decisions D13a): the community's toggle for the route (null: only the platform
 * switch and the whitelist, as for `webhooks/*`), the scope (null: none), whether only HMAC-signed requests are
 * taken (`webhooks/*`), and whether it writes (a key bound to an `active` partner).
 */
export interface FederationAccessPolicy {
  readonly toggle: FederationToggle | null
  readonly scope: FederationScope | null
  readonly signedOnly?: boolean
  readonly write?: boolean
}

export const FederationAccessFailure = Schema.Union(
  httpError(FederationDisabled),
  httpError(AuthRequired),
  httpError(InvalidApiKey),
  httpError(SignatureRequired),
  httpError(SignatureInvalid),
  httpError(TimestampInvalid),
  httpError(FederationTokenInvalid),
  httpError(ReplayDetected),
  httpError(TenantMismatch),
  httpError(PermissionDenied),
  httpError(RateLimited)
)

type FederationAccessOptions = {
  readonly failure: typeof FederationAccessFailure
  readonly provides: typeof FederationCaller
}

/** A middleware tag made by {@link FederationAccess}: the route's policy travels with the contract. */
export type FederationAccessTag<Self, Name extends string> =
  & HttpApiMiddleware.TagClass<Self, Name, FederationAccessOptions>
  & { readonly access: FederationAccessPolicy }

/**
 * The one gate of `/api/v1/federation/*`, declared per endpoint with its policy:
 *
 *   export class ListingsRead extends FederationAccess<ListingsRead>()("FederationListingsRead", {
 *     toggle: "listings", scope: "listings:read"
 *   }) {}
 *
 * It checks, in D13a's order: platform switch (503) → credentials (401: API key, HMAC or JWT) → tenant from the key
 * (403 `TENANT_MISMATCH` when a tenant header disagrees) → whitelist (503) → toggle (503) → scope (403) → per-key
 * rate limit (429), and provides {@link FederationCaller}. Payload validation (422) follows, as for every route.
 * The server builds it from the tag (`federationAccessLayer(ListingsRead)`).
 */
export const FederationAccess =
  <Self>() =>
  <const Name extends string>(name: Name, policy: FederationAccessPolicy): FederationAccessTag<Self, Name> => {
    const Tag = HttpApiMiddleware.Tag<Self>()(name, { failure: FederationAccessFailure, provides: FederationCaller })
    return Object.assign(Tag, { access: policy }) as FederationAccessTag<Self, Name>
  }
