import { canonicalString, signatureHolds } from "@timebank/server"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { makePartner } from "../fixtures/federation.js"

/**
 * A partner's webhook endpoint on 127.0.0.1 for outbound webhook tests: it checks each request's HMAC as a partner
 * would (recomputing `METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY` with the secret it gave us) and records it. It answers
 * `mode`: a status code, or `hang` (accepts the connection and never answers); the test may change it any time.
 */

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  readonly body: {
    readonly id: string
    readonly event: string
    readonly tenant: { readonly id: number; readonly slug: string }
    readonly occurred_at: string
    readonly data: Record<string, unknown>
  }
  /** The signature holds for the partner's secret. */
  readonly signed: boolean
  readonly at: number
}

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  mode: number | "hang"
  /** The requests of one event name. */
  readonly of: (event: string) => ReadonlyArray<Received>
}

/** Native credentials of values found nowhere else. */
export const partnerCredentials = () => ({
  api_key: `tbk_${randomBytes(32).toString("hex")}`,
  signing_secret: `tbs_${randomBytes(32).toString("hex")}`
})

/** A receiver checking signatures with `secret`, closed (hanging connections too) when the scope ends. */
export const webhookReceiver = (secret: string, mode: number | "hang" = 200) =>
  Effect.acquireRelease(
    Effect.async<Receiver>((resume) => {
      const received: Array<Received> = []
      const sockets = new Set<Socket>()
      const server = createServer((req, res) => {
        let raw = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (raw += chunk))
        req.on("end", () => {
          const header = (name: string) => String(req.headers[name] ?? "")
          const canonical = canonicalString({
            method: req.method ?? "",
            path: req.url ?? "",
            timestamp: header("x-federation-timestamp"),
            nonce: header("x-federation-nonce"),
            body: raw
          })
          received.push({
            path: req.url ?? "",
            headers: req.headers,
            raw,
            body: JSON.parse(raw) as Received["body"],
            signed: signatureHolds(secret, canonical, header("x-federation-signature")),
            at: Date.now()
          })
          if (receiver.mode === "hang") return
          res.writeHead(receiver.mode, { "content-type": "application/json" })
          res.end("{}")
        })
      })
      server.on("connection", (socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
      })
      const receiver: Receiver & { close: () => Promise<void> } = {
        url: "",
        received,
        mode,
        of: (event) => received.filter((r) => r.body.event === event),
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      }
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        Object.assign(receiver, { url: `http://127.0.0.1:${port}/hooks/timebank?via=test` })
        resume(Effect.succeed(receiver))
      })
    }),
    (receiver) => Effect.promise(() => (receiver as Receiver & { close: () => Promise<void> }).close())
  )

/** An active native partner of `tenant` whose webhooks go to a receiver of its own (answering `mode`). */
export const partnerWithReceiver = (
  tenant: { readonly id: number },
  mode: number | "hang" = 200,
  options: { readonly name?: string; readonly status?: "pending" | "active" | "suspended" | "failed" } = {}
) =>
  Effect.gen(function*() {
    const credentials = partnerCredentials()
    const receiver = yield* webhookReceiver(credentials.signing_secret, mode)
    const partner = yield* makePartner(tenant, {
      status: options.status ?? "active",
      webhookUrl: receiver.url,
      credentials,
      ...(options.name === undefined ? {} : { name: options.name })
    })
    return { ...partner, receiver, credentials }
  })

/** Polls `check` every 50 ms until it holds (then gives its value), failing the test after `seconds`. */
export const eventually = <A, R>(
  what: string,
  check: Effect.Effect<A | undefined, never, R>,
  seconds = 15
): Effect.Effect<A, never, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + seconds * 1000
    while (true) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for: ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })
