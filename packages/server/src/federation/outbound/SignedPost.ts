import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import http from "node:http"
import https from "node:https"
import type { Socket } from "node:net"
import { signedHeaders } from "../signing/FederationSignature.js"

/**
 * The signed `POST` we send to partners (decisions D13, D13a): the partner's test call and every outbound webhook.
 * Shared by the partners admin routes and the outbound webhook workers.
 */

/** Connect timeout and whole-request timeout of D13. */
export const CONNECT_TIMEOUT_MS = 5_000
export const REQUEST_TIMEOUT_MS = 10_000

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

export const isSuccess = (result: SignedPostResult) =>
  result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300

/**
 * Sends one signed POST and reports how it went; it never fails. Bearer = the partner's key, the four
 * `X-Federation-*` headers signed with its secret over `POST\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY`. A receiver that
 * does not accept the connection within 5 s, or does not finish answering within 10 s, ends as a timeout. Errors
 * never carry the credentials.
 */
export const signedPost = (input: SignedPostInput): Effect.Effect<SignedPostResult> =>
  Effect.suspend(() => {
    const started = Date.now()
    const done = (statusCode: number | null, error: string | null): SignedPostResult => ({
      statusCode,
      latencyMs: Date.now() - started,
      error
    })
    let target: URL
    try {
      target = new URL(input.url)
    } catch {
      return Effect.succeed(done(null, "invalid URL"))
    }
    if (target.protocol !== "https:" && target.protocol !== "http:") {
      return Effect.succeed(done(null, `unsupported protocol ${target.protocol}`))
    }
    const body = typeof input.body === "string" ? input.body : JSON.stringify(input.body)
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "authorization": `Bearer ${input.credentials.apiKey}`,
      "x-federation-webhook-id": input.webhookId,
      "user-agent": "timebank-federation/1",
      ...signedHeaders({
        secret: input.credentials.signingSecret,
        platformId: platformIdOf(input.credentials),
        method: "POST",
        path: `${target.pathname}${target.search}`,
        body,
        nonce: input.nonce ?? randomUUID(),
        nowMillis: input.nowMillis ?? started
      })
    }
    const connectMs = input.connectTimeoutMs ?? CONNECT_TIMEOUT_MS
    const wholeMs = input.timeoutMs ?? REQUEST_TIMEOUT_MS

    return Effect.async<SignedPostResult>((resume, signal) => {
      let settled = false
      const timers: Array<NodeJS.Timeout> = []
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return
        settled = true
        timers.forEach(clearTimeout)
        resume(Effect.succeed(done(statusCode, error)))
      }
      let request: http.ClientRequest
      try {
        request = (target.protocol === "https:" ? https : http).request(target, {
          method: "POST",
          headers,
          signal
        }, (response) => {
          const status = response.statusCode ?? 0
          response.on("error", (e) => finish(null, `response failed: ${e.message}`))
          response.on(
            "end",
            () => finish(status, status >= 200 && status < 300 ? null : `answered with HTTP ${status}`)
          )
          response.resume()
        })
      } catch (e) {
        // Node refuses header values it cannot send (a credential with a line break): its message names the
        // header, never the value.
        finish(null, `request failed: ${(e as Error).message}`)
        return
      }
      const fail = (error: string) => {
        request.destroy()
        finish(null, error)
      }
      timers.push(setTimeout(() => fail(`timeout: no complete answer within ${wholeMs} ms`), wholeMs))
      request.on("socket", (socket: Socket) => {
        if (!socket.connecting) return
        const connectTimer = setTimeout(() => fail(`timeout: could not connect within ${connectMs} ms`), connectMs)
        timers.push(connectTimer)
        socket.once("connect", () => clearTimeout(connectTimer))
      })
      request.on("error", (e) => finish(null, describe(e)))
      request.end(body)
      return Effect.sync(() => {
        settled = true
        timers.forEach(clearTimeout)
        request.destroy()
      })
    })
  })

const describe = (e: Error) => `request failed: ${e.message}`
