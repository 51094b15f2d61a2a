import { HttpApiBuilder, HttpServerRequest, HttpServerResponse, Socket } from "@effect/platform"
import { CurrentTenant, type Tenant } from "@timebank/domain"
import { Cause, Effect, Option, Queue } from "effect"
import { IdentityService } from "../../identity/IdentityService.js"
import { errorJson } from "../../platform/HttpEdge.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { BellRepo } from "../BellRepo.js"
import { RealtimeConfig } from "./RealtimeConfig.js"
import { Frames } from "./RealtimeDelivery.js"
import { type LocalSocket, RealtimeCloseCodes, RealtimeSockets } from "./RealtimeSockets.js"

export const REALTIME_PATH = "/api/v2/realtime"

/** Frames a socket may have waiting; a client that reads slower than that loses the oldest. */
const SOCKET_BACKLOG = 256

/**
 * Browsers cannot set headers on a WebSocket: the tenant may come as `?tenant=<id or slug>` (after the
 * `X-Tenant-ID` / `X-Tenant-Slug` headers, before the host), the token as `?token=` or `Authorization: Bearer`.
 */
const tenantHeadersOf = (headers: Readonly<Record<string, string>>, tenant: string | null) => {
  if (headers["x-tenant-id"]?.trim() || headers["x-tenant-slug"]?.trim() || !tenant?.trim()) return headers
  return /^\d+$/.test(tenant.trim())
    ? { ...headers, "x-tenant-id": tenant.trim() }
    : { ...headers, "x-tenant-slug": tenant.trim() }
}

const bearerOf = (authorization: string | undefined) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1]
}

/** Closes a socket we will not serve, right after the handshake (a browser sees no HTTP status). */
const refuse = (socket: Socket.Socket, code: number, reason: string) =>
  Effect.flatMap(
    socket.writer,
    (write) =>
      socket.runRaw(() => {}, { onOpen: Effect.ignore(write(new Socket.CloseEvent(code, reason))) }).pipe(
        // Our own close code ends the socket with a SocketCloseError: that is the point.
        Effect.catchAll(() => Effect.void)
      )
  )

const makeHandler = Effect.gen(function*() {
  const config = yield* RealtimeConfig
  const directory = yield* TenantDirectory
  const identity = yield* IdentityService
  const sockets = yield* RealtimeSockets
  const bells = yield* BellRepo

  const callerOf = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const params = new URL(request.url, "http://realtime.invalid").searchParams
      const tenant = yield* directory.resolve(tenantHeadersOf(request.headers, params.get("tenant")))
      const token = params.get("token") ?? bearerOf(request.headers["authorization"]) ?? ""
      const actor = yield* Effect.provideService(identity.authenticateBearer(token), CurrentTenant, tenant)
      return { tenant, userId: actor.userId }
    }).pipe(Effect.option)

  const serve = (socket: Socket.Socket, tenant: Tenant, userId: number) =>
    Effect.gen(function*() {
      const write = yield* socket.writer
      const backlog = yield* Queue.sliding<string | Socket.CloseEvent>(SOCKET_BACKLOG)
      const local: LocalSocket = {
        tenantId: tenant.id,
        userId,
        send: (frame) => void Queue.unsafeOffer(backlog, frame),
        close: (code, reason) => void Queue.unsafeOffer(backlog, new Socket.CloseEvent(code, reason))
      }
      const accepted = yield* Effect.acquireRelease(sockets.register(local), () => sockets.unregister(local))
      if (!accepted) {
        return yield* refuse(socket, RealtimeCloseCodes.processFull, "too many connections; try again later")
      }

      // One writer per socket, so frames keep their order and a slow client never holds up the bus.
      const writer = Effect.gen(function*() {
        for (;;) {
          const frame = yield* Queue.take(backlog)
          yield* Effect.catchAllCause(write(frame), () => Effect.void)
          if (Socket.isCloseEvent(frame)) return
        }
      })
      yield* Effect.forkScoped(writer)
      yield* Effect.sleep(config.heartbeat).pipe(
        Effect.zipRight(Effect.sync(() => local.send(Frames.ping))),
        Effect.forever,
        Effect.forkScoped
      )
      // Registered first: a bell made while the counts are read still reaches this socket.
      const counts = yield* Effect.provideService(bells.counts(userId), CurrentTenant, tenant)
      local.send(Frames.counts(counts))
      // Clients send nothing we act on; the socket lives until either side closes it.
      yield* socket.runRaw(() => {}).pipe(Effect.catchAll(() => Effect.void))
    })

  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["upgrade"]?.toLowerCase() !== "websocket") {
      return errorJson(426, {
        errors: [{ code: "UPGRADE_REQUIRED", message: "This endpoint speaks WebSocket only" }]
      }, { upgrade: "websocket" })
    }
    const caller = yield* callerOf(request)
    const socket = yield* request.upgrade
    yield* Option.match(caller, {
      onNone: () => refuse(socket, RealtimeCloseCodes.unauthorised, "invalid token or tenant"),
      onSome: ({ tenant, userId }) => serve(socket, tenant, userId)
    })
    return HttpServerResponse.empty()
  }).pipe(
    Effect.scoped,
    // Handled here rather than by the edge, whose log line would carry the URL, and so a `?token=`.
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("realtime socket failed", cause).pipe(
        Effect.as(errorJson(500, { errors: [{ code: "SERVER_ERROR", message: "Internal server error" }] }))
      )
    )
  )
})

/** `GET /api/v2/realtime`: a raw route next to the HttpApi (same server and port), upgraded to a WebSocket. */
export const RealtimeRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(makeHandler, (handler) => router.get(REALTIME_PATH, handler))
)
