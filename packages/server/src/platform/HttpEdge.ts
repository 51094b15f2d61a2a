import {
  HttpApiBuilder,
  HttpApiError,
  HttpApp,
  HttpIncomingMessage,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { type ErrorBody, PATH_PARAM_NOT_FOUND } from "@timebank/domain"
import { Cause, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { RouteTable } from "./RouteTable.js"

export const errorJson = (status: number, body: ErrorBody, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

const single = (code: string, message: string): ErrorBody => ({ errors: [{ code, message }] })

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const pickRequestId = (sent: string | undefined): string => (sent && REQUEST_ID.test(sent) ? sent : randomUUID())

interface EdgeOptions {
  readonly routes: RouteTable
  readonly maxBodyBytes: number
}

/**
 * Wraps every request (API routes, docs, raw routes): assigns `X-Request-Id`, caps body size, and turns what the
 * HttpApi does not encode itself into our error envelope (decisions D1): unknown routes (404), wrong methods (405),
 * bodies that are not JSON (400) or too large (413), and defects (500, logged with the request id, nothing
 * internal in the body). Typed domain failures pass through to the HttpApi, which encodes them by their schema.
 */
export const httpEdge = (options: EdgeOptions) =>
  HttpApiBuilder.middleware((app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = pickRequestId(request.headers["x-request-id"])
      yield* HttpApp.appendPreResponseHandler((_req, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
      )
      const maxBodyBytes = bodyCapOf(request, options)
      // Refuse a declared oversize body before reading it, so the client gets the 413 instead of a reset socket.
      if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return payloadTooLarge(maxBodyBytes)
      return yield* app.pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
        Effect.catchAllCause((cause) => edgeResponse(cause, request, requestId, options, maxBodyBytes)),
        Effect.annotateLogs({ request_id: requestId })
      )
    })
  )

/** The default cap, raised for a route whose contract declares a larger one (`MaxBodyBytes`, uploads). */
const bodyCapOf = (request: HttpServerRequest.HttpServerRequest, options: EdgeOptions): number => {
  if (!options.routes.hasBodyCaps) return options.maxBodyBytes
  const pathname = request.url.split("?")[0] ?? ""
  return Option.match(options.routes.maxBodyBytes(request.method, pathname), {
    onNone: () => options.maxBodyBytes,
    onSome: (cap) => Math.max(cap, options.maxBodyBytes)
  })
}

const payloadTooLarge = (maxBodyBytes: number) =>
  errorJson(413, single("PAYLOAD_TOO_LARGE", `Request body exceeds ${maxBodyBytes} bytes`))

const failureTag = (u: unknown): string => typeof u === "object" && u !== null && "_tag" in u ? String(u._tag) : ""

const edgeResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  options: EdgeOptions,
  maxBodyBytes: number
) => {
  // The app's error type is `never`, but typed failures are still in the cause; hand them on unchanged.
  const passOn = Effect.failCause(cause as Cause.Cause<never>)
  if (Cause.isInterruptedOnly(cause)) return passOn
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failureTag(failure.value) !== "RouteNotFound") return passOn
  return errorResponse(cause, request, requestId, options, maxBodyBytes)
}

const errorResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  options: EdgeOptions,
  maxBodyBytes: number
) => {
  const error = Cause.squash(cause)
  const tag = failureTag(error)
  if (tag === "RouteNotFound") {
    const pathname = new URL(request.url, "http://x").pathname
    const allowed = options.routes.allowedMethods(pathname)
    // A path the router could not match although its method is allowed there (such as a malformed percent
    // escape) is not a wrong method: it names nothing.
    return Effect.succeed(
      allowed.length > 0 && !allowed.includes(request.method)
        ? errorJson(405, single("METHOD_NOT_ALLOWED", `${request.method} is not allowed here`), {
          allow: allowed.join(", ")
        })
        : errorJson(404, single("NOT_FOUND", "No such route"))
    )
  }
  if (tag === "RequestError") {
    const inner = (error as { cause?: unknown }).cause
    if (inner instanceof Error && inner.message === "maxBytes exceeded") {
      return Effect.succeed(payloadTooLarge(maxBodyBytes))
    }
    if (inner instanceof SyntaxError) {
      return Effect.succeed(errorJson(400, single("INVALID_JSON", "Request body is not valid JSON")))
    }
    return Effect.succeed(errorJson(400, single("BAD_REQUEST", "The request could not be read")))
  }
  return Effect.logError("unhandled failure", cause).pipe(
    Effect.annotateLogs({ method: request.method, url: request.url }),
    Effect.as(errorJson(500, single("SERVER_ERROR", `Internal server error (request_id: ${requestId})`)))
  )
}

/**
 * Schema failures of path, query, headers or body become 422 `VALIDATION_ERROR` with one entry per field; a path
 * parameter that does not decode means the record does not exist (404 `NOT_FOUND`).
 * Runs inside the HttpApi, before its own error encoding would answer 400.
 */
export const DecodeErrorsLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) => {
    // The app's error type is `never`, but the HttpApi's own decode failures are still in the cause here.
    const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
    return Option.isSome(failure) && failure.value instanceof HttpApiError.HttpApiDecodeError
      ? Effect.succeed(decodeErrorResponse(failure.value))
      : Effect.failCause(cause)
  })
)

const decodeErrorResponse = (error: HttpApiError.HttpApiDecodeError) => {
  if (error.issues.some((i) => i.message === PATH_PARAM_NOT_FOUND)) {
    return errorJson(404, single("NOT_FOUND", "Not found"))
  }
  // A field can fail in several ways (each member of a union); the envelope carries one entry per field.
  const byField = new Map<string, string>()
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".")
    if (!byField.has(field)) byField.set(field, issue.message)
  }
  // A union reports its member alternatives too ("tags.0: expected string" and "tags: expected undefined");
  // the deepest problem is the useful one, so a field that is an ancestor of another reported field is dropped.
  const fields = [...byField.keys()]
  const isAncestor = (f: string) => fields.some((g) => g !== f && (f === "" || g.startsWith(`${f}.`)))
  const entries = [...byField].filter(([field]) => !isAncestor(field)).map(([field, message]) =>
    field === "" ? { code: "VALIDATION_ERROR", message } : { code: "VALIDATION_ERROR", message, field }
  )
  return errorJson(422, {
    errors: entries.length > 0 ? entries : [{ code: "VALIDATION_ERROR", message: error.message }]
  })
}
