import { HttpApiBuilder } from "@effect/platform"
import {
  Api,
  FEDERATION_SCOPES,
  type FederationScope,
  type FederationTokenRequest,
  type FederationTokenResponse,
  OAuthClientRefused,
  OAuthRequestRefused
} from "@timebank/domain"
import { Effect, Layer, Option } from "effect"
import { setResponseHeaders } from "../../platform/ResponseHeaders.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { ApiKeyStore } from "../keys/ApiKeyStore.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { federationDisabled } from "./FederationAccessLive.js"
import { FEDERATION_JWT_SECONDS, FederationTokens } from "./FederationTokens.js"

/** `Authorization: Basic base64(client_id:client_secret)`, each part form-encoded as RFC 6749 §2.3.1 says. */
export const basicCredentials = (authorization: string | undefined) => {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "")
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 1) return undefined
  const unform = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "))
    } catch {
      return s
    }
  }
  return { clientId: unform(decoded.slice(0, colon)), clientSecret: unform(decoded.slice(colon + 1)) }
}

const refuse = (error: OAuthRequestRefused["error"], description: string) =>
  new OAuthRequestRefused({ error, error_description: description })

/**
 * What the form asks for: the scopes to grant (the key's, narrowed by `scope`), or the RFC 6749 error.
 */
export const grantOf = (
  form: FederationTokenRequest,
  keyScopes: ReadonlyArray<FederationScope>
): OAuthRequestRefused | ReadonlyArray<FederationScope> => {
  const { grant_type: grant, scope } = form
  if (grant === undefined || grant === "") return refuse("invalid_request", "grant_type is required")
  if (grant !== "client_credentials") {
    return refuse("unsupported_grant_type", "Only grant_type=client_credentials is supported")
  }
  const requested = [...new Set((scope ?? "").split(" ").filter((s) => s !== ""))]
  if (requested.length === 0) return keyScopes
  const lacking = requested.filter((s) => !keyScopes.includes(s as FederationScope))
  if (lacking.length > 0) {
    const unknown = lacking.filter((s) => !FEDERATION_SCOPES.includes(s as FederationScope))
    return refuse(
      "invalid_scope",
      unknown.length > 0 ? `Unknown scope: ${unknown.join(" ")}` : `This key lacks: ${lacking.join(" ")}`
    )
  }
  return keyScopes.filter((s) => requested.includes(s))
}

const invalidClient = Effect.zipRight(
  setResponseHeaders({ "www-authenticate": "Basic realm=\"timebank-federation\"" }),
  Effect.fail(
    new OAuthClientRefused({
      error: "invalid_client",
      error_description: "Send the key prefix and the API key of a usable key as HTTP Basic credentials"
    })
  )
)

/**
 * The token endpoint: platform switch (503) → client (401) → the key's community whitelisted and active (503) →
 * the form (400). A key that signs its requests may take a token too; it must still sign the calls it makes with it.
 */
export const FederationOAuthHttpLive = HttpApiBuilder.group(
  Api,
  "federationOAuth",
  (handlers) =>
    Effect.gen(function*() {
      const switches = yield* FederationSwitches
      const keys = yield* ApiKeyStore
      const tenants = yield* TenantDirectory
      const tokens = yield* FederationTokens
      return handlers.handle("token", ({ payload, request }) =>
        Effect.gen(function*() {
          if (!(yield* switches.platformEnabled)) return yield* federationDisabled
          const client = basicCredentials(request.headers["authorization"])
          if (client === undefined) return yield* invalidClient
          const found = yield* keys.byApiKey(client.clientSecret)
          if (Option.isNone(found) || !found.value.usable || found.value.keyPrefix !== client.clientId) {
            return yield* invalidClient
          }
          const key = found.value
          const tenant = yield* tenants.find({ _tag: "Id", id: String(key.tenantId) })
          const settings = yield* switches.tenant(key.tenantId)
          if (Option.isNone(tenant) || tenant.value.status !== "active" || !settings.whitelisted) {
            return yield* federationDisabled
          }
          const grant = grantOf(payload, key.scopes)
          if (grant instanceof OAuthRequestRefused) return yield* grant
          const accessToken = yield* tokens.issue({
            keyId: key.id,
            tenantId: key.tenantId,
            partnerId: key.partnerId,
            scopes: grant
          })
          yield* setResponseHeaders({ "cache-control": "no-store", pragma: "no-cache" })
          return {
            access_token: accessToken,
            token_type: "Bearer",
            expires_in: FEDERATION_JWT_SECONDS,
            scope: grant.join(" ")
          } satisfies FederationTokenResponse
        }))
    })
)

export const FederationOAuthLive = FederationOAuthHttpLive.pipe(
  Layer.provide(
    Layer.mergeAll(ApiKeyStore.Default, FederationSwitches.Default, FederationTokens.Default).pipe(Layer.orDie)
  )
)
