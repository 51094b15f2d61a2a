import type { FederationAccessPolicy, FederationScope, FederationToggles } from "@timebank/domain"
import { HEADER_NONCE, HEADER_PLATFORM_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP } from "../signing/FederationSignature.js"

/**
 * The pure decisions of the federation gate (decisions D13, D13a): what a request presents, and what the tenant's
 * switches and the key allow. The middleware (`FederationAccessLive`) does the I/O around them.
 */

type Headers = Readonly<Record<string, string | undefined>>

/** The four `X-Federation-*` headers: none sent, some but not all, or all four. */
export type SignatureHeaders =
  | { readonly _tag: "None" }
  | { readonly _tag: "Incomplete" }
  | {
    readonly _tag: "Complete"
    readonly platformId: string
    readonly timestamp: string
    readonly nonce: string
    readonly signature: string
  }

export interface Presented {
  /** `Authorization: Bearer <x>` (first) or `X-API-Key: <x>`: an API key or a federation JWT. */
  readonly bearer: string | undefined
  readonly signature: SignatureHeaders
}

const nonEmpty = (value: string | undefined) => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

/** What credentials a request carries; an `Authorization` of another scheme (Basic, ...) counts as none. */
export const presentedCredentials = (headers: Headers): Presented => {
  const authorization = nonEmpty(headers["authorization"])
  const bearer = authorization !== undefined && /^bearer\s+/i.test(authorization)
    ? nonEmpty(authorization.replace(/^bearer\s+/i, ""))
    : undefined
  const parts = [HEADER_PLATFORM_ID, HEADER_TIMESTAMP, HEADER_NONCE, HEADER_SIGNATURE].map((h) => nonEmpty(headers[h]))
  const [platformId, timestamp, nonce, signature] = parts
  const signatureHeaders: SignatureHeaders = parts.every((p) => p === undefined)
    ? { _tag: "None" }
    : platformId === undefined || timestamp === undefined || nonce === undefined || signature === undefined
    ? { _tag: "Incomplete" }
    : { _tag: "Complete", platformId, timestamp, nonce, signature }
  return { bearer: bearer ?? nonEmpty(headers["x-api-key"]), signature: signatureHeaders }
}

/** A bearer in JWT form (three base64url parts); API keys are `tbk_` + hex and never contain a dot. */
export const looksLikeFederationJwt = (bearer: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(bearer)

/** Whether a tenant header names another community than the key's (`X-Tenant-ID`, `X-Tenant-Slug`). */
export const tenantHeaderDisagrees = (headers: Headers, tenant: { readonly id: number; readonly slug: string }) => {
  const id = nonEmpty(headers["x-tenant-id"])
  const slug = nonEmpty(headers["x-tenant-slug"])
  return (id !== undefined && id !== String(tenant.id)) || (slug !== undefined && slug.toLowerCase() !== tenant.slug)
}

/** The scopes a JWT grants: those it names that its key still has (a narrowed key narrows its tokens). */
export const narrowScopes = (
  keyScopes: ReadonlyArray<FederationScope>,
  requested: ReadonlyArray<string>
): ReadonlyArray<FederationScope> => keyScopes.filter((s) => requested.includes(s))

/** Why the switches refuse a request (503 `FEDERATION_DISABLED`), checked after the credentials. */
export const switchesRefuse = (
  policy: FederationAccessPolicy,
  tenant: { readonly active: boolean; readonly whitelisted: boolean; readonly toggles: FederationToggles }
): "whitelist" | "toggle" | undefined =>
  !tenant.active || !tenant.whitelisted
    ? "whitelist"
    : policy.toggle !== null && !tenant.toggles[policy.toggle]
    ? "toggle"
    : undefined

/**
 * What the key may not do on this route (403 `PERMISSION_DENIED`): the route's scope is missing; its partner is
 * suspended or deleted (refused on every route); a write without a partner, or with one that is not `active`.
 */
export const permissionRefusal = (
  policy: FederationAccessPolicy,
  key: { readonly scopes: ReadonlyArray<FederationScope>; readonly partnerStatus: string | null }
): string | undefined => {
  if (policy.scope !== null && !key.scopes.includes(policy.scope)) {
    return `This key lacks the ${policy.scope} scope`
  }
  if (key.partnerStatus === "suspended" || key.partnerStatus === "deleted") {
    return "The partner of this key is suspended"
  }
  if (policy.write === true && key.partnerStatus !== "active") {
    return "Writes need a key bound to an active partner"
  }
  return undefined
}

/** The fixed one-minute window of the per-key limit (D13a): its number and when it ends (unix millis). */
export const minuteWindow = (nowMillis: number) => {
  const index = Math.floor(nowMillis / 60_000)
  return { index, endsAtMillis: (index + 1) * 60_000 }
}
