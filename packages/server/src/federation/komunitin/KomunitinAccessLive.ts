import type { HttpApiMiddleware } from "@effect/platform"
import { HttpServerRequest } from "@effect/platform"
import {
  type FederationAccessPolicy,
  type FederationCallerShape,
  FederationTokenInvalid,
  KomunitinAccessFailure,
  KomunitinAccountsRead,
  KomunitinTransfersRead,
  KomunitinTransfersWrite,
  NotFound,
  PermissionDenied,
  TenantMismatch
} from "@timebank/domain"
import { type Context, Effect, Layer, Option } from "effect"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import { federationDisabled, federationGate } from "../auth/FederationAccessLive.js"
import {
  permissionRefusal,
  presentedCredentials,
  switchesRefuse,
  tenantHeaderDisagrees
} from "../auth/FederationGate.js"
import { FederationTokens } from "../auth/FederationTokens.js"
import { NonceStore } from "../auth/NonceStore.js"
import { ApiKeyStore } from "../keys/ApiKeyStore.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { isKomunitinToken, KOMUNITIN_TOKEN_SCOPES, KomunitinTokens } from "./KomunitinTokens.js"

/** Requests per minute a Komunitin server's token may make: D13a's default for a key. */
export const KOMUNITIN_TOKEN_PER_MINUTE = 60

/** `{CODE}` of `/api/v1/federation/{CODE}/…`. */
export const codeOfPath = (url: string) => /^\/api\/v1\/federation\/([^/?#]*)/.exec(url)?.[1] ?? ""

type KomunitinAccessTagLike<I> =
  & Context.Tag<I, HttpApiMiddleware.HttpApiMiddleware<FederationCallerShape, typeof KomunitinAccessFailure.Type>>
  & { readonly access: FederationAccessPolicy }

const unknownCode = new NotFound({ message: "No currency has this code" })
const notBound = new PermissionDenied({ message: "These routes need a key bound to a partner" })
const invalidToken = new FederationTokenInvalid({
  message: "The token is invalid or expired, or its key is not pinned by a partner of this currency"
})

/**
 * The middleware of a `{CODE}` route (decisions D16). Our credentials go through the shared gate, the code's community
 * being the one the route names: credentials (401) → `{CODE}` (unknown → 404; a key of another community → 403
 * `TENANT_MISMATCH`) → D13a's remaining steps, then a key bound to a partner (403). A Komunitin server's EdDSA token
 * names no community itself: platform switch (503) → `{CODE}` (404) → the token against the pinned keys of that
 * community's `komunitin` partners (401 `INVALID_TOKEN` otherwise) → D13a's remaining steps for its partner.
 */
export const komunitinAccessLayer = <I>(tag: KomunitinAccessTagLike<I>) =>
  Layer.effect(
    tag,
    Effect.gen(function*() {
      const policy = tag.access
      const gate = yield* federationGate(policy)
      const switches = yield* FederationSwitches
      const accounts = yield* FederationAccounts
      const tokens = yield* KomunitinTokens

      const asPartner =
        (request: HttpServerRequest.HttpServerRequest, tenant: FederationCallerShape["tenant"]) => (bearer: string) =>
          Effect.gen(function*() {
            const partner = yield* tokens.partnerOf(tenant.id, bearer)
            if (Option.isNone(partner)) return yield* invalidToken
            if (tenantHeaderDisagrees(request.headers, tenant)) {
              return yield* new TenantMismatch({ message: "The tenant header names another community than the code" })
            }
            const settings = yield* switches.tenant(tenant.id)
            if (switchesRefuse(policy, { active: tenant.status === "active", ...settings }) !== undefined) {
              return yield* federationDisabled
            }
            const refusal = permissionRefusal(policy, {
              scopes: KOMUNITIN_TOKEN_SCOPES,
              partnerStatus: partner.value.status
            })
            if (refusal !== undefined) return yield* new PermissionDenied({ message: refusal })
            yield* gate.perMinuteLimit(`komunitin-partner:${partner.value.id}`, KOMUNITIN_TOKEN_PER_MINUTE)
            if (request.method === "GET") yield* gate.perIpReadLimit
            return {
              keyId: null,
              tenant,
              partnerId: partner.value.id,
              scopes: KOMUNITIN_TOKEN_SCOPES,
              method: "komunitin_token"
            } satisfies FederationCallerShape
          })

      const communityOf = (url: string) =>
        Effect.flatMap(
          accounts.tenantOfCode(codeOfPath(url)),
          Option.match({ onNone: () => Effect.fail(unknownCode), onSome: Effect.succeed })
        )

      return Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { bearer } = presentedCredentials(request.headers)
        if (bearer !== undefined && isKomunitinToken(bearer)) {
          // The token's key is checked against the partners of the community the code names: that one first.
          if (!(yield* switches.platformEnabled)) return yield* federationDisabled
          return yield* asPartner(request, yield* communityOf(request.url))(bearer)
        }
        const caller: FederationCallerShape = yield* gate.check(communityOf(request.url))
        if (caller.partnerId === null) return yield* notBound
        return caller
      })
    })
  )

/** The `{CODE}` routes' gates, with what they need (as `FederationAccessLive`, plus the codes and the tokens). */
export const KomunitinAccessLive = Layer.mergeAll(
  komunitinAccessLayer(KomunitinAccountsRead),
  komunitinAccessLayer(KomunitinTransfersRead),
  komunitinAccessLayer(KomunitinTransfersWrite)
).pipe(
  Layer.provide(
    Layer.mergeAll(
      ApiKeyStore.Default,
      FederationSwitches.Default,
      FederationTokens.Default,
      NonceStore.Default,
      FederationAccounts.Default,
      KomunitinTokens.Default
    ).pipe(Layer.orDie)
  )
)
