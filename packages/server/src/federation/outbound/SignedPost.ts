import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { partnerRequest } from "../protocols/PartnerHttp.js"
import { signedHeaders } from "../signing/FederationSignature.js"

/**
 * The signed `POST` we send to partners (decisions D13, D13a): the partner's test call and every outbound webhook.
 * Shared by the partners admin routes and the outbound webhook workers.
 */

export { CONNECT_TIMEOUT_MS, isSuccess, REQUEST_TIMEOUT_MS } from "../protocols/PartnerHttp.js"

/** What we sign and authenticate with towards one partner (native: the key that partner issued to us). */
export interface OutboundCredentials {
  readonly apiKey: string
  readonly signingSecret: string
}

/** A partner's opened credentials: the sealed JSON text of a string map (what `PartnerRepo` seals). */
export const decodeCredentialMap = (opened: string): Record<string, string> => {
  try {
    const parsed: unknown = JSON.parse(opened)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {}
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string")
    )
  } catch {
    return {}
  }
}

/** The signing credentials out of a credential map: `api_key` and `signing_secret`, both non-empty. */
export const outboundCredentials = (map: Readonly<Record<string, string>>): Option.Option<OutboundCredentials> => {
  const apiKey = map["api_key"]
  const signingSecret = map["signing_secret"]
  return apiKey !== undefined && apiKey !== "" && signingSecret !== undefined && signingSecret !== ""
    ? Option.some({ apiKey, signingSecret })
    : Option.none()
}

/** Our platform id towards a partner: the first 12 characters of the key it issued to us (its `key_prefix`). */
export const platformIdOf = (credentials: OutboundCredentials) => credentials.apiKey.slice(0, 12)

export interface SignedPostInput {
  readonly url: string
  /** The JSON body: sent (and signed) as given when a string, else as `JSON.stringify(body)`. */
  readonly body: string | object
  readonly credentials: OutboundCredentials
  /** `X-Federation-Webhook-Id`: the body's `id`, kept across retries so the receiver can deduplicate. */
  readonly webhookId: string
  readonly nonce?: string
  readonly nowMillis?: number
  readonly connectTimeoutMs?: number
  readonly timeoutMs?: number
}

/** How a signed POST ended: `statusCode` null when no answer came; `error` null exactly when it was a 2xx. */
export interface SignedPostResult {
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

/**
 * Sends one signed POST and reports how it went; it never fails. Bearer = the partner's key, the four
 * `X-Federation-*` headers signed with its secret over `POST\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY`. Timeouts and
 * errors as {@link partnerRequest}.
 */
export const signedPost = (input: SignedPostInput): Effect.Effect<SignedPostResult> =>
  Effect.suspend(() => {
    const body = typeof input.body === "string" ? input.body : JSON.stringify(input.body)
    let path: string
    try {
      const target = new URL(input.url)
      path = `${target.pathname}${target.search}`
    } catch {
      return Effect.succeed({ statusCode: null, latencyMs: 0, error: "invalid URL" })
    }
    return Effect.map(
      partnerRequest({
        method: "POST",
        url: input.url,
        body,
        headers: {
          "content-type": "application/json",
          "authorization": `Bearer ${input.credentials.apiKey}`,
          "x-federation-webhook-id": input.webhookId,
          ...signedHeaders({
            secret: input.credentials.signingSecret,
            platformId: platformIdOf(input.credentials),
            method: "POST",
            path,
            body,
            nonce: input.nonce ?? randomUUID(),
            nowMillis: input.nowMillis ?? Date.now()
          })
        },
        ...(input.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: input.connectTimeoutMs }),
        ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs })
      }),
      (response): SignedPostResult => ({
        statusCode: response.statusCode,
        latencyMs: response.latencyMs,
        error: response.error
      })
    )
  })
