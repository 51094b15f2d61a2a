import { SqlClient } from "@effect/sql"
import { UnsubscribeKind } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

/** What an unsubscribe token says: which member (`u`) of which community (`t`) stops what (`k`). */
export const UnsubscribeClaim = Schema.Struct({
  u: Schema.Int.pipe(Schema.positive()),
  t: Schema.Int.pipe(Schema.positive()),
  k: UnsubscribeKind
})
export type UnsubscribeClaim = typeof UnsubscribeClaim.Type

const decodeClaim = Schema.decodeUnknownOption(Schema.parseJson(UnsubscribeClaim))

const mac = (key: Uint8Array, body: string) => createHmac("sha256", key).update(body).digest()

/** `base64url(JSON claim) "." base64url(HMAC-SHA256(key, first part))`. Tokens do not expire: old mails keep working. */
export const signUnsubscribe = (key: Uint8Array, claim: UnsubscribeClaim): string => {
  const body = Buffer.from(JSON.stringify({ u: claim.u, t: claim.t, k: claim.k })).toString("base64url")
  return `${body}.${mac(key, body).toString("base64url")}`
}

/** The claim of a token this key signed; none for anything else (tampered, truncated, another key). */
export const verifyUnsubscribe = (key: Uint8Array, token: string): Option.Option<UnsubscribeClaim> => {
  const [body, signature, ...rest] = token.split(".")
  if (body === undefined || signature === undefined || rest.length > 0 || !/^[\w-]+$/.test(body)) return Option.none()
  const given = Buffer.from(signature, "base64url")
  const expected = mac(key, body)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Option.none()
  return decodeClaim(Buffer.from(body, "base64url").toString("utf8"))
}

const KEY_NAME = "unsubscribe"

/**
 * The unsubscribe key, made once in `signing_keys` and shared by every runner: the first runner's insert wins, the
 * others read that one.
 */
export class UnsubscribeTokens extends Effect.Service<UnsubscribeTokens>()("UnsubscribeTokens", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO signing_keys (name, secret) VALUES (${KEY_NAME}, ${randomBytes(32)})
      ON CONFLICT (name) DO NOTHING`.pipe(dieOnSqlError)
    const row = yield* sql`SELECT secret FROM signing_keys WHERE name = ${KEY_NAME}`.pipe(
      decodeSingle(Schema.Struct({ secret: Schema.Uint8ArrayFromSelf })),
      dieOnSqlError
    )
    const key = row.secret
    return {
      sign: (claim: UnsubscribeClaim) => signUnsubscribe(key, claim),
      verify: (token: string) => verifyUnsubscribe(key, token)
    } as const
  })
}) {}
