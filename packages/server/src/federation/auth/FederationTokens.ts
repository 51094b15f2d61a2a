import { Effect, Option, Schema } from "effect"
import { jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../platform/AppConfig.js"
import { SecretBox } from "../../platform/SecretBox.js"

/** `aud` of every federation JWT (decisions D13). */
export const FEDERATION_JWT_AUDIENCE = "timebank-federation"

/** Lifetime of a federation JWT (spec "Limits": one hour). */
export const FEDERATION_JWT_SECONDS = 3600

const Digits = Schema.String.pipe(Schema.pattern(/^[1-9]\d{0,15}$/))

/** The claims the gate reads; the rest (`iss`, `aud`, `exp`, ...) are checked by the verification itself. */
const FederationClaims = Schema.Struct({ key_id: Digits, tenant_id: Digits, scope: Schema.String })

export interface VerifiedToken {
  readonly keyId: number
  readonly tenantId: number
  /** The scopes named by the token's `scope` claim (the gate intersects them with the key's). */
  readonly scopes: ReadonlyArray<string>
}

/**
 * Short-lived JWTs of `POST /api/v1/federation/oauth/token`: HS256 under a key derived from the secrets key
 * (`SecretBox.derive("federation-jwt")`), the same on every runner. Only HS256 verifies: `alg: none` and every
 * other algorithm are refused by jose before any claim is read.
 */
export class FederationTokens extends Effect.Service<FederationTokens>()("FederationTokens", {
  dependencies: [SecretBox.Default],
  effect: Effect.gen(function*() {
    const box = yield* SecretBox
    const { publicUrl } = yield* AppConfig
    const secret = new Uint8Array(box.derive("federation-jwt"))
    const issuer = publicUrl

    const issue = (input: {
      readonly keyId: number
      readonly tenantId: number
      readonly partnerId: number | null
      readonly scopes: ReadonlyArray<string>
    }) =>
      Effect.promise(() => {
        const now = Math.floor(Date.now() / 1000)
        return new SignJWT({
          key_id: String(input.keyId),
          tenant_id: String(input.tenantId),
          scope: input.scopes.join(" ")
        })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setIssuer(issuer)
          .setAudience(FEDERATION_JWT_AUDIENCE)
          .setSubject(String(input.partnerId ?? input.keyId))
          .setJti(randomUUID())
          .setIssuedAt(now)
          .setExpirationTime(now + FEDERATION_JWT_SECONDS)
          .sign(secret)
      })

    /** The token's key, tenant and scopes, or none when it is malformed, tampered with, unsigned or expired. */
    const verify = (token: string): Effect.Effect<Option.Option<VerifiedToken>> =>
      Effect.promise(() =>
        jwtVerify(token, secret, {
          algorithms: ["HS256"],
          issuer,
          audience: FEDERATION_JWT_AUDIENCE,
          requiredClaims: ["exp", "iat", "jti", "sub"]
        }).then(({ payload }) => Option.some(payload), () => Option.none())
      ).pipe(
        Effect.map(Option.flatMap(Schema.decodeUnknownOption(FederationClaims))),
        Effect.map(Option.map((claims) => ({
          keyId: Number(claims.key_id),
          tenantId: Number(claims.tenant_id),
          scopes: claims.scope.split(" ").filter((s) => s !== "")
        })))
      )

    return { issue, verify } as const
  })
}) {}
