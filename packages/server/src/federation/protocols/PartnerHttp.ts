import { Effect } from "effect"
import http from "node:http"
import https from "node:https"
import type { Socket } from "node:net"

/**
 * The one HTTP client of federation: every call we make to a partner (webhooks, test calls, transfers in each
 * protocol, diagnose) goes through {@link partnerRequest}. It never fails: how the call ended is in the result.
 */

/** Connect timeout and whole-request timeout of D13. */
export const CONNECT_TIMEOUT_MS = 5_000
export const REQUEST_TIMEOUT_MS = 10_000

/** The most of a partner's answer we read (an answer is quoted in diagnostics and failures, never streamed). */
export const MAX_ANSWER_BYTES = 256 * 1024

export interface PartnerRequest {
  readonly method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as given; `content-length` is set from it. */
  readonly body?: string
  readonly connectTimeoutMs?: number
  readonly timeoutMs?: number
}

/**
 * How a call ended: `statusCode` null when no answer came (then `error` says why, and `timedOut` whether the
 * partner may still have acted on it); `error` null exactly for a 2xx. `headers` lower-case, `body` as text.
 */
export interface PartnerResponse {
  readonly statusCode: number | null
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly latencyMs: number
  readonly error: string | null
  /** The request went out and no complete answer came: the partner may or may not have acted on it. */
  readonly timedOut: boolean
}

export const isSuccess = (result: { readonly statusCode: number | null }) =>
  result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300

/** The answer's JSON, or undefined when it is not JSON. */
export const answerJson = (response: PartnerResponse): unknown => {
  try {
    return JSON.parse(response.body)
  } catch {
    return undefined
  }
}

/** A short quote of the answer for people (diagnose details, transfer failures): status and the body's start. */
export const quoteAnswer = (response: PartnerResponse, max = 300): string => {
  if (response.statusCode === null) return response.error ?? "no answer"
  const text = response.body.replace(/\s+/g, " ").trim()
  const body = text.length > max ? `${text.slice(0, max)}…` : text
  return body === "" ? `HTTP ${response.statusCode}` : `HTTP ${response.statusCode}: ${body}`
}

const headersOf = (message: http.IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(message.headers).map((
      [name, value]
    ) => [name, Array.isArray(value) ? value.join(", ") : value ?? ""])
  )

/**
 * Sends one request to a partner. A partner that does not accept the connection within 5 s, or does not finish
 * answering within 10 s, ends as a timeout. Errors never carry the request's headers (credentials).
 */
export const partnerRequest = (input: PartnerRequest): Effect.Effect<PartnerResponse> =>
  Effect.suspend(() => {
    const started = Date.now()
    const ended = (
      statusCode: number | null,
      error: string | null,
      rest: { readonly headers?: Record<string, string>; readonly body?: string; readonly timedOut?: boolean } = {}
    ): PartnerResponse => ({
      statusCode,
      headers: rest.headers ?? {},
      body: rest.body ?? "",
      latencyMs: Date.now() - started,
      error,
      timedOut: rest.timedOut ?? false
    })
    let target: URL
    try {
      target = new URL(input.url)
    } catch {
      return Effect.succeed(ended(null, "invalid URL"))
    }
    if (target.protocol !== "https:" && target.protocol !== "http:") {
      return Effect.succeed(ended(null, `unsupported protocol ${target.protocol}`))
    }
    const headers: Record<string, string> = {
      "user-agent": "timebank-federation/1",
      ...input.headers,
      ...(input.body === undefined ? {} : { "content-length": String(Buffer.byteLength(input.body)) })
    }
    const connectMs = input.connectTimeoutMs ?? CONNECT_TIMEOUT_MS
    const wholeMs = input.timeoutMs ?? REQUEST_TIMEOUT_MS

    return Effect.async<PartnerResponse>((resume, signal) => {
      let settled = false
      let sent = false
      const timers: Array<NodeJS.Timeout> = []
      const finish = (response: PartnerResponse) => {
        if (settled) return
        settled = true
        timers.forEach(clearTimeout)
        resume(Effect.succeed(response))
      }
      let request: http.ClientRequest
      try {
        request = (target.protocol === "https:" ? https : http).request(target, {
          method: input.method,
          headers,
          signal
        }, (response) => {
          const status = response.statusCode ?? 0
          const chunks: Array<Buffer> = []
          let size = 0
          response.on("data", (chunk: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size))
            size += chunk.length
          })
          response.on("error", (e) => finish(ended(null, `response failed: ${e.message}`, { timedOut: true })))
          response.on("end", () =>
            finish(ended(status, status >= 200 && status < 300 ? null : `answered with HTTP ${status}`, {
              headers: headersOf(response),
              body: Buffer.concat(chunks).toString("utf8")
            })))
        })
      } catch (e) {
        // Node refuses header values it cannot send (a credential with a line break): its message names the
        // header, never the value.
        finish(ended(null, `request failed: ${(e as Error).message}`))
        return
      }
      const fail = (error: string, timedOut: boolean) => {
        request.destroy()
        finish(ended(null, error, { timedOut }))
      }
      timers.push(setTimeout(() =>
        fail(`timeout: no complete answer within ${wholeMs} ms`, sent), wholeMs))
      request.on("socket", (socket: Socket) => {
        if (!socket.connecting) {
          sent = true
          return
        }
        const connectTimer = setTimeout(() =>
          fail(`timeout: could not connect within ${connectMs} ms`, false), connectMs)
        timers.push(connectTimer)
        socket.once("connect", () => {
          sent = true
          clearTimeout(connectTimer)
        })
      })
      request.on("error", (e) => finish(ended(null, `request failed: ${e.message}`, { timedOut: sent })))
      request.end(input.body)
      return Effect.sync(() => {
        settled = true
        timers.forEach(clearTimeout)
        request.destroy()
      })
    })
  })
