import { SqlClient } from "@effect/sql"
import type { FederationScope } from "@timebank/domain"
import { Effect, Option } from "effect"
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose"
import { createPublicKey } from "node:crypto"
import { decodeRows } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"
import { looksLikeFederationJwt } from "../auth/FederationGate.js"
import { PartnerDirectory } from "../partners/PartnerDirectory.js"
import { PartnerRow } from "../partners/PartnerRepo.js"
import { decodeStellarPublicKey, pinnedKeysOf } from "./StellarKeys.js"

/** The credential of a `komunitin` partner that pins the Stellar keys its server signs with. */
export const KOMUNITIN_PUBLIC_KEYS = "komunitin_public_keys"

/** What a Komunitin server's token may do here: act as its partner on transfers (decisions D16). */
export const KOMUNITIN_TOKEN_SCOPES: ReadonlyArray<FederationScope> = ["transactions:read", "transactions:write"]

/**
 * `aud` values a Komunitin server accepts by default (`AUTH_JWT_AUDIENCE`); its servers send `komunitin-app`
 * (`createExternalToken`, `accounting/src/controller/external-jwt.ts`).
 */
export const KOMUNITIN_AUDIENCES = ["komunitin-app", "komunitin-notifications"]

/** Komunitin's `verifyExternalToken`: tokens live an hour at most, with five minutes of clock tolerance. */
const MAX_TOKEN_AGE = "1h"
const CLOCK_TOLERANCE_SECONDS = 300

/** A bearer in JWT form signed with EdDSA: Komunitin's server-to-server token (our own JWTs are HS256). */
export const isKomunitinToken = (bearer: string) => {
  if (!looksLikeFederationJwt(bearer)) return false
  try {
    return decodeProtectedHeader(bearer).alg === "EdDSA"
  } catch {
    return false
  }
}

/** The Stellar account id a token names as `sub`, read before its signature is checked (it names the key). */
const subjectOf = (token: string): string | undefined => {
  try {
    const sub = decodeJwt(token).sub
    return typeof sub === "string" ? sub : undefined
  } catch {
    return undefined
  }
}

const publicKeyOf = (raw: Uint8Array) =>
  createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") },
    format: "jwk"
  })

export interface TokenPartner {
  readonly id: number
  readonly status: string
}

const COLUMNS = "id, tenant_id, name, protocol_type, base_url, webhook_url, credentials, credential_keys, settings, " +
  "status, created_at, updated_at"

/**
 * Komunitin's server-to-server tokens (decisions D16): an EdDSA JWT whose `sub` is the Stellar public key (`G…`)
 * of the account that signs. The key comes from `sub` itself, so a token proves only that its sender holds that
 * key; it is taken only when a `komunitin` partner of the community pinned the key in its credentials. The
 * caller's `href` is never fetched to learn keys.
 */
export class KomunitinTokens extends Effect.Service<KomunitinTokens>()("KomunitinTokens", {
  dependencies: [PartnerDirectory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const partners = yield* PartnerDirectory

    /** The community's `komunitin` partner (lowest id first) that pinned `stellarKey`. */
    const pinnedBy = (tenantId: number, stellarKey: string) =>
      Effect.gen(function*() {
        const rows = yield* sql`
          SELECT ${sql.literal(COLUMNS)} FROM federation_partners
          WHERE tenant_id = ${tenantId} AND protocol_type = 'komunitin' AND deleted_at IS NULL
            AND ${KOMUNITIN_PUBLIC_KEYS} = ANY(credential_keys)
          ORDER BY id`.pipe(decodeRows(PartnerRow), dieOnSqlError)
        for (const row of rows) {
          const credentials = yield* partners.opened(row)
          if (pinnedKeysOf(credentials[KOMUNITIN_PUBLIC_KEYS]).includes(stellarKey)) {
            return Option.some<TokenPartner>({ id: row.id, status: row.status })
          }
        }
        return Option.none<TokenPartner>()
      })

    /** The partner a valid token of the community's pinned keys acts for; none for anything else. */
    const partnerOf = (tenantId: number, token: string): Effect.Effect<Option.Option<TokenPartner>> =>
      Effect.gen(function*() {
        const sub = subjectOf(token)
        const raw = sub === undefined ? undefined : decodeStellarPublicKey(sub)
        if (sub === undefined || raw === undefined) return Option.none()
        const verified = yield* Effect.promise(() =>
          jwtVerify(token, publicKeyOf(raw), {
            algorithms: ["EdDSA"],
            audience: KOMUNITIN_AUDIENCES,
            maxTokenAge: MAX_TOKEN_AGE,
            clockTolerance: CLOCK_TOLERANCE_SECONDS
          }).then(() => true, () => false)
        )
        return verified ? yield* pinnedBy(tenantId, sub) : Option.none()
      })

    return { partnerOf } as const
  })
}) {}
