import { HttpServerRequest } from "@effect/platform"
import {
  AuthRequired,
  type FederationAccessPolicy,
  type FederationCallerShape,
  type FederationScope,
  FederationTokenInvalid,
  InvalidApiKey,
  ReplayDetected,
  SignatureInvalid,
  SignatureRequired,
  TimestampInvalid
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { ApiKeyStore, type StoredKey } from "../keys/ApiKeyStore.js"
import {
  canonicalString,
  nonceWellFormed,
  parseTimestamp,
  signatureHolds,
  timestampInWindow
} from "../signing/FederationSignature.js"
import { looksLikeFederationJwt, narrowScopes, presentedCredentials, type SignatureHeaders } from "./FederationGate.js"
import { FederationTokens } from "./FederationTokens.js"
import { NonceStore } from "./NonceStore.js"

/** The key a request's credentials name, with what they grant; the tenant and the policy come after. */
export interface Authenticated {
  readonly key: StoredKey
  readonly scopes: ReadonlyArray<FederationScope>
  readonly method: FederationCallerShape["method"]
}

const invalidKey = new InvalidApiKey({ message: "The API key is unknown, revoked or expired" })
const invalidToken = new FederationTokenInvalid({ message: "The token is invalid, expired or its key is revoked" })
const invalidSignature = (message: string) => new SignatureInvalid({ message })

const usable = <E>(found: Option.Option<StoredKey>, error: E) =>
  Option.isSome(found) && found.value.usable ? Effect.succeed(found.value) : Effect.fail(error)

/** D13: "BODY empty for GET" (the edge reads no body for them); so is a request without a body. */
const bodyless = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "GET" || request.method === "HEAD" ||
  (request.headers["transfer-encoding"] === undefined && Number(request.headers["content-length"] ?? 0) === 0)

/**
 * Bodies the edge has already read and kept as text (JSON, form, text). Others are read from the socket once, by
 * the route's decoder: reading them here too would leave it waiting for bytes that never come.
 */
const keptAsText = (contentType: string | undefined) => {
  const type = (contentType ?? "application/json").toLowerCase()
  return type.includes("application/json") || type.includes("x-www-form-urlencoded") ||
    type.trimStart().startsWith("text/")
}

const signedBody = (request: HttpServerRequest.HttpServerRequest) =>
  bodyless(request)
    ? Effect.succeed("")
    : keptAsText(request.headers["content-type"])
    ? Effect.mapError(request.text, () => invalidSignature("The body could not be read"))
    : Effect.fail(invalidSignature("A signed body must be JSON, form-encoded or text"))

/**
 * Checks the credentials of a federation request (decisions D13, D13a; the second step of the gate): an API key as
 * bearer or `X-API-Key`, a federation JWT as bearer, and/or the four `X-Federation-*` HMAC headers (with the
 * bearer, or alone with `X-Federation-Platform-ID` = the key's prefix). A signed request is checked whatever the
 * key: with its signing secret, else with the API key presented as bearer (the secret a key without `signing`
 * shares with its partner); with neither (headers alone or a JWT for such a key) the signature cannot hold
 * (`SIGNATURE_INVALID`). The nonce is claimed only once the signature holds.
 */
export const authenticate = Effect.fn("FederationCredentials.authenticate")(function*(
  policy: FederationAccessPolicy
) {
  const request = yield* HttpServerRequest.HttpServerRequest
  const keys = yield* ApiKeyStore
  const presented = presentedCredentials(request.headers)
  const { bearer, signature } = presented
  if (bearer === undefined && signature._tag === "None") {
    return yield* new AuthRequired({ message: "Send an API key, an HMAC signature or a federation token" })
  }

  let key: StoredKey
  let scopes: ReadonlyArray<FederationScope>
  let method: Authenticated["method"]
  let sharedSecret: string | undefined
  if (bearer !== undefined && looksLikeFederationJwt(bearer)) {
    const tokens = yield* FederationTokens
    const verified = yield* Effect.flatMap(
      tokens.verify(bearer),
      (v) => Option.isSome(v) ? Effect.succeed(v.value) : Effect.fail(invalidToken)
    )
    key = yield* usable(yield* keys.byId(verified.keyId), invalidToken)
    if (key.tenantId !== verified.tenantId) return yield* invalidToken
    scopes = narrowScopes(key.scopes, verified.scopes)
    method = "jwt"
  } else if (bearer !== undefined) {
    key = yield* usable(yield* keys.byApiKey(bearer), invalidKey)
    scopes = key.scopes
    method = "api_key"
    sharedSecret = bearer
  } else {
    if (signature._tag !== "Complete") return yield* invalidSignature("All four X-Federation-* headers are needed")
    key = yield* usable(yield* keys.byPrefix(signature.platformId), invalidKey)
    scopes = key.scopes
    method = "hmac"
  }

  if (signature._tag === "None") {
    if (Option.isSome(key.signingSecret)) {
      return yield* new SignatureRequired({ message: "This key signs its requests: send the X-Federation-* headers" })
    }
    if (policy.signedOnly === true) {
      return yield* new SignatureRequired({ message: "This route takes only HMAC-signed requests" })
    }
    return { key, scopes, method } satisfies Authenticated
  }
  const secret = Option.getOrElse(key.signingSecret, () => sharedSecret)
  yield* verifySignature(request, key, signature, secret)
  return { key, scopes, method: method === "jwt" ? method : "hmac" } satisfies Authenticated
})

const verifySignature = (
  request: HttpServerRequest.HttpServerRequest,
  key: StoredKey,
  signature: SignatureHeaders,
  secret: string | undefined
) =>
  Effect.gen(function*() {
    if (signature._tag !== "Complete") return yield* invalidSignature("All four X-Federation-* headers are needed")
    if (signature.platformId !== key.keyPrefix) return yield* invalidKey
    const timestamp = parseTimestamp(signature.timestamp)
    if (timestamp === undefined || !timestampInWindow(timestamp, Date.now())) {
      return yield* new TimestampInvalid({ message: "X-Federation-Timestamp must be unix seconds within 300 s of now" })
    }
    if (!nonceWellFormed(signature.nonce)) {
      return yield* invalidSignature("X-Federation-Nonce must be 8 to 128 printable characters")
    }
    if (secret === undefined) return yield* invalidSignature("This key has no signing secret to check against")
    const body = yield* signedBody(request)
    const canonical = canonicalString({
      method: request.method,
      path: request.originalUrl,
      timestamp: signature.timestamp,
      nonce: signature.nonce,
      body
    })
    if (!signatureHolds(secret, canonical, signature.signature)) {
      return yield* invalidSignature("The signature does not match the request")
    }
    const nonces = yield* NonceStore
    if (!(yield* nonces.claim(key.id, signature.nonce))) {
      return yield* new ReplayDetected({ message: "This nonce was already used" })
    }
  })
