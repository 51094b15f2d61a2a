import { HttpApiMiddleware } from "@effect/platform"
import { Schema } from "effect"
import { httpError, NotFound } from "../http/ApiError.js"
import { RateLimit } from "../http/RateLimit.js"
import { FederationAccessFailure, type FederationAccessPolicy, FederationCaller } from "./FederationAccess.js"

/**
 * The gate of Komunitin's JSON:API routes `/api/v1/federation/{CODE}/…` (decisions D16): the route names its
 * community by `{CODE}` (unknown → 404 `NOT_FOUND`; a key of another community → 403 `TENANT_MISMATCH`), then D13a's
 * steps as for every federation route. Besides our API keys, HMAC and JWTs it takes Komunitin's own server-to-server
 * token: an EdDSA JWT whose `sub` is a Stellar key pinned by a `komunitin` partner of that community
 * (`credentials.komunitin_public_keys`), acting as that partner with `transactions:read` and `transactions:write`.
 * Every route needs a caller bound to a partner (403 `PERMISSION_DENIED` otherwise).
 */
export const KomunitinAccessFailure = Schema.Union(FederationAccessFailure, httpError(NotFound))

type KomunitinAccessOptions = {
  readonly failure: typeof KomunitinAccessFailure
  readonly provides: typeof FederationCaller
}

export type KomunitinAccessTag<Self, Name extends string> =
  & HttpApiMiddleware.TagClass<Self, Name, KomunitinAccessOptions>
  & { readonly access: FederationAccessPolicy }

/** A `{CODE}` route's policy; the server builds its middleware with `komunitinAccessLayer`. */
export const KomunitinAccess = <Self>() =>
<const Name extends string>(
  name: Name,
  policy: FederationAccessPolicy
): KomunitinAccessTag<Self, Name> => {
  const Tag = HttpApiMiddleware.Tag<Self>()(name, { failure: KomunitinAccessFailure, provides: FederationCaller })
  return Object.assign(Tag, { access: policy }) as KomunitinAccessTag<Self, Name>
}

/** `GET /{CODE}/accounts?filter[code]=`: D16 gates every `{CODE}` route on the `transactions` toggle. */
export class KomunitinAccountsRead extends KomunitinAccess<KomunitinAccountsRead>()("KomunitinAccountsRead", {
  toggle: "transactions",
  scope: "members:read"
}) {}

export class KomunitinTransfersRead extends KomunitinAccess<KomunitinTransfersRead>()("KomunitinTransfersRead", {
  toggle: "transactions",
  scope: "transactions:read"
}) {}

export class KomunitinTransfersWrite extends KomunitinAccess<KomunitinTransfersWrite>()("KomunitinTransfersWrite", {
  toggle: "transactions",
  scope: "transactions:write",
  write: true
}) {}

/**
 * The routes Komunitin reads without credentials (`/{CODE}/currency`, `/{CODE}/accounts/{id}`: a peer GETs the
 * `href` of an external account): the spec's per-IP limit of federation reads.
 */
export class KomunitinPublicReadLimit extends RateLimit<KomunitinPublicReadLimit>()("KomunitinPublicReadLimit", {
  limit: 60,
  window: "1 minute",
  scope: "ip"
}) {}
