import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo, Socket } from "node:net"

/**
 * A partner platform's server on 127.0.0.1 for the adapter tests: it records every request exactly as it arrived
 * (method, path with query, headers, raw body) and answers what the test's `handle` returns, or hangs (accepts the
 * connection and never answers) for timeouts. Each peer (`komunitinPeer.ts`, …) builds its behaviour on this from
 * the fixtures of ../shared/federation/fixtures.
 */

export interface PeerRequest {
  readonly method: string
  /** Path with its query string, as sent. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown
}

export type PeerAnswer =
  | {
    readonly status: number
    readonly body?: unknown
    /** Sent as given instead of `JSON.stringify(body)`. */
    readonly raw?: string
    readonly headers?: Record<string, string>
  }
  | "hang"

export interface FakePeer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly requests: Array<PeerRequest>
  /** Replace the behaviour at any time. */
  handle: (request: PeerRequest) => PeerAnswer
}

const parse = (raw: string): unknown => {
  try {
    return raw === "" ? undefined : JSON.parse(raw)
  } catch {
    return undefined
  }
}

/** A fake peer, closed (hanging connections too) when the scope ends. */
export const fakePeer = (handle: (request: PeerRequest) => PeerAnswer) =>
  Effect.acquireRelease(
    Effect.async<FakePeer>((resume) => {
      const sockets = new Set<Socket>()
      const peer = { url: "", requests: [] as Array<PeerRequest>, handle }
      const server = createServer((req, res) => {
        let raw = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (raw += chunk))
        req.on("end", () => {
          const request: PeerRequest = {
            method: req.method ?? "",
            path: req.url ?? "",
            headers: req.headers,
            raw,
            json: parse(raw)
          }
          peer.requests.push(request)
          const answer = peer.handle(request)
          if (answer === "hang") return
          const body = answer.raw ?? (answer.body === undefined ? "" : JSON.stringify(answer.body))
          res.writeHead(answer.status, {
            "content-type": "application/json",
            date: new Date().toUTCString(),
            ...answer.headers
          })
          res.end(body)
        })
      })
      server.on("connection", (socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
      })
      server.listen(0, "127.0.0.1", () => {
        peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resume(Effect.succeed(Object.assign(peer, { server, sockets })))
      })
    }),
    (peer) =>
      Effect.async<void>((resume) => {
        const { server, sockets } = peer as FakePeer & {
          server: ReturnType<typeof createServer>
          sockets: Set<Socket>
        }
        sockets.forEach((s) => s.destroy())
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((peer): FakePeer => peer))
