import { HttpServer } from "@effect/platform"
import { Duration, Effect, Schedule } from "effect"
import WebSocket from "ws"

/** A frame as the server wrote it (decisions D9): `{"type", "data"?}`. */
export interface Frame {
  readonly type: string
  readonly data?: Record<string, unknown>
}

/** How the server ended a socket, once it did. */
export interface Closed {
  readonly code: number
  readonly reason: string
}

export interface TestSocket {
  /** Every frame received so far, in order. */
  readonly frames: ReadonlyArray<Frame>
  /** The first frame (from index `from`) that matches, once it came; fails the test after `timeout`. */
  readonly frame: (
    match: (frame: Frame) => boolean,
    options?: { readonly from?: number; readonly timeout?: Duration.DurationInput }
  ) => Effect.Effect<Frame>
  /** The close the server sent, once it came; fails the test after `timeout`. */
  readonly closed: (timeout?: Duration.DurationInput) => Effect.Effect<Closed>
  readonly isOpen: () => boolean
}

/** The port of the server the effect runs against (`TestHttpServer` listens on a random one). */
export const serverPort = Effect.map(HttpServer.HttpServer, (server) => {
  if (server.address._tag !== "TcpAddress") throw new Error("the test server listens on TCP")
  return server.address.port
})

const waitUntil = <A>(find: () => A | undefined, what: () => string, timeout: Duration.DurationInput) =>
  Effect.sync(find).pipe(
    Effect.filterOrFail((found): found is A => found !== undefined, () => "not yet"),
    Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo(timeout))),
    Effect.orElse(() => Effect.die(new Error(what())))
  )

interface SocketOptions {
  readonly query?: Record<string, string>
  readonly headers?: Record<string, string>
}

/**
 * A `ws` client on `GET /api/v2/realtime` of the server on `port` (closed with the test's scope), with the query
 * parameters and headers given: the wire as a browser or an app sees it.
 */
export const openSocketAt = (port: number, options: SocketOptions = {}) =>
  Effect.gen(function*() {
    const query = new URLSearchParams(options.query ?? {}).toString()
    const url = `ws://127.0.0.1:${port}/api/v2/realtime${query === "" ? "" : `?${query}`}`
    const frames: Array<Frame> = []
    let closed: Closed | undefined
    const ws = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const socket = new WebSocket(url, { headers: options.headers ?? {} })
        socket.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame))
        socket.on("close", (code, reason) => {
          closed = { code, reason: String(reason) }
        })
        socket.on("error", () => {})
        return socket
      }),
      (socket) => Effect.sync(() => socket.terminate())
    )
    const socket: TestSocket = {
      frames,
      frame: (match, { from = 0, timeout = "10 seconds" } = {}) =>
        waitUntil(
          () => frames.slice(from).find(match),
          () => `no such frame came; frames: ${JSON.stringify(frames)}, closed: ${JSON.stringify(closed)}`,
          timeout
        ),
      closed: (timeout = "10 seconds") =>
        waitUntil(() => closed, () => `the socket stayed open; frames: ${JSON.stringify(frames)}`, timeout),
      isOpen: () => ws.readyState === WebSocket.OPEN
    }
    return socket
  })

/** {@link openSocketAt} the server in context. */
export const openSocket = (options: SocketOptions = {}) =>
  Effect.flatMap(serverPort, (port) => openSocketAt(port, options))

type Who = { readonly headers: Record<string, string> }

/** The options of `who`'s socket: token and tenant as query parameters, as a browser sends them. */
const optionsOf = (who: Who): SocketOptions => ({
  query: {
    token: (who.headers["authorization"] ?? "").replace(/^Bearer /, ""),
    tenant: who.headers["x-tenant-id"] ?? ""
  }
})

/** A socket of `who` on the server in context. */
export const socketOf = (who: Who) => openSocket(optionsOf(who))

const connected = (socket: TestSocket) => Effect.as(socket.frame((f) => f.type === "counts"), socket)

/** A socket of `who` on the server in context, once its first frame (the counts) came. */
export const connectedSocketOf = (who: Who) => Effect.flatMap(socketOf(who), connected)

/** A socket of `who` on the server on `port`, once its first frame came. */
export const connectedSocketAt = (port: number, who: Who) =>
  Effect.flatMap(openSocketAt(port, optionsOf(who)), connected)

export const isNotification = (type: string) => (frame: Frame) =>
  frame.type === "notification" && frame.data?.["type"] === type
