import { Data, Duration, Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import http from "node:http"
import https from "node:https"
import { rootCertificates } from "node:tls"
import { PushConfig } from "./PushConfig.js"

/** A push service could not be reached or answered in a way we cannot use. */
export class PushRequestFailed extends Data.TaggedError("PushRequestFailed")<{
  readonly channel: string
  readonly reason: string
  readonly status?: number
}> {
  override get message() {
    const answered = this.status === undefined ? "" : `answered ${this.status}`
    return `${this.channel}: ${[answered, this.reason].filter((part) => part !== "").join(": ")}`
  }
}

export interface PushResponse {
  readonly status: number
  readonly body: string
}

/** What a send did: delivered, the push service says the subscription is gone (404/410), or the channel is off. */
export type SendOutcome = "sent" | "gone" | "skipped"

export const outcomeOf = (channel: string, response: PushResponse): Effect.Effect<SendOutcome, PushRequestFailed> =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed("sent")
    : response.status === 404 || response.status === 410
    ? Effect.succeed("gone")
    : Effect.fail(new PushRequestFailed({ channel, reason: response.body.slice(0, 200), status: response.status }))

/**
 * POSTs to push services over http or https — whichever the URL says, so a web push goes to its endpoint exactly as
 * given (decisions D12a) — trusting the system's CAs plus `PUSH_CA_FILE`.
 */
export class PushTransport extends Effect.Service<PushTransport>()("PushTransport", {
  dependencies: [PushConfig.Default],
  scoped: Effect.gen(function*() {
    const config = yield* PushConfig
    const extraCa = Option.map(config.caFile, (file) => readFileSync(file, "utf8"))
    /** Trusted CAs for TLS requests: undefined keeps Node's defaults. */
    const ca = Option.map(extraCa, (pem) => [...rootCertificates, pem]).pipe(Option.getOrUndefined)
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => new https.Agent({ keepAlive: true, ...(ca === undefined ? {} : { ca }) })),
      (a) => Effect.sync(() => a.destroy())
    )
    const timeoutMs = Duration.toMillis(config.timeout)

    const post = (channel: string, url: string, headers: Record<string, string>, body: string | Buffer) =>
      Effect.async<PushResponse, PushRequestFailed>((resume, signal) => {
        let target: URL
        try {
          target = new URL(url)
        } catch {
          return resume(Effect.fail(new PushRequestFailed({ channel, reason: "not a URL" })))
        }
        const secure = target.protocol === "https:"
        const request = (secure ? https : http).request(target, {
          method: "POST",
          headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
          signal,
          timeout: timeoutMs,
          ...(secure ? { agent } : {})
        }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on(
            "end",
            () =>
              resume(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
          )
          response.on("error", (e) => resume(Effect.fail(new PushRequestFailed({ channel, reason: e.message }))))
        })
        request.on("timeout", () => request.destroy(new Error("timed out")))
        request.on("error", (e) => resume(Effect.fail(new PushRequestFailed({ channel, reason: e.message }))))
        request.end(body)
      })

    return { post, ca, timeoutMs } as const
  })
}) {}
