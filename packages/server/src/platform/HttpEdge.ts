import {
  HttpApiBuilder,
  HttpApiError,
  HttpApp,
  HttpIncomingMessage,
  HttpServerRequest,
  HttpServerResponse,
  type Multipart
} from "@effect/platform"
import { type ErrorBody, PATH_PARAM_NOT_FOUND } from "@timebank/domain"
import { Cause, Effect, FiberRef, HashMap, Option } from "effect"
import { randomUUID } from "node:crypto"
import { payloadTooLarge } from "./RequestBody.js"
import { guardBody, RefusedInput, refusedTarget, sendsBody } from "./RequestGuard.js"
import { pathOf, type RouteTable } from "./RouteTable.js"
import { dialectOf, rewriteWith, type WireDialect } from "./WireDialect.js"

export const errorJson = (status: number, body: ErrorBody, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

const single = (code: string, message: string): ErrorBody => ({ errors: [{ code, message }] })

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const pickRequestId = (sent: string | undefined): string => (sent && REQUEST_ID.test(sent) ? sent : randomUUID())

interface EdgeOptions {
  readonly routes: RouteTable
  readonly maxBodyBytes: number
  /** Route families that answer in another platform's wire format (OAuth, JSON:API, Credit Commons). */
  readonly dialects?: ReadonlyArray<WireDialect>
}

/**
 * Wraps every request (API routes, docs, raw routes): assigns `X-Request-Id`, caps body size, refuses input no
 * handler should see (`guardRequest`: control characters, bad encodings, deep JSON), and turns what the HttpApi
 * does not encode itself into our error envelope (decisions D1): unknown routes (404), wrong methods (405), bodies
 * that are not JSON (400) or too large (413), and defects (500, logged with the request id, nothing internal in the
 * body). Typed domain failures pass through to the HttpApi, which encodes them by their schema.
 */
export const httpEdge = (options: EdgeOptions) => {
  const dialects = options.dialects ?? []
  return HttpApiBuilder.middleware((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const requestId = pickRequestId(request.headers["x-request-id"])
      const path = pathOf(request.url)
      const dialect = dialects.length === 0 ? undefined : dialectOf(dialects, path)
      // Set on the request's own fiber, not scoped around the app: every later line and the response keep them.
      const tagged = Effect.zipRight(tagResponse(requestId, dialect), tagLogs(requestId))
      return Effect.zipRight(tagged, checked(app, request, path, requestId, options))
    })
  )
}

/** `X-Request-Id` on whatever answers the request, then the dialect's rewrite when the path speaks one. */
const tagResponse = (requestId: string, dialect: WireDialect | undefined) => {
  const rewrite = dialect === undefined ? undefined : rewriteWith(dialect)
  return HttpApp.appendPreResponseHandler((_req, response) => {
    const tagged = HttpServerResponse.setHeader(response, "x-request-id", requestId)
    return rewrite === undefined ? Effect.succeed(tagged) : rewrite(tagged)
  })
}

const tagLogs = (requestId: string) =>
  FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", requestId))

/**
 * The app behind the checks, cheapest first: a declared oversize body (413, before reading it, so the client gets
 * the 413 instead of a reset socket), then the target and headers; only a request that sends a body to a route
 * of its method has it read and checked, under the route's cap.
 */
const checked = (
  app: HttpApp.Default,
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  requestId: string,
  options: EdgeOptions
) => {
  const sent = sendsBody(request)
  const maxBodyBytes = sent ? bodyCapOf(request, path, options) : options.maxBodyBytes
  const answer = Effect.suspend(() => {
    if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return Effect.succeed(tooLarge(maxBodyBytes))
    const refused = refusedTarget(request)
    if (refused !== undefined) return refusedResponse(refused)
    if (!sent) return app
    const body = options.routes.allows(request.method, path)
      ? Effect.matchEffect(guardBody(request), {
        onFailure: refusedResponse,
        onSuccess: (read) => Effect.provideService(app, HttpServerRequest.HttpServerRequest, read)
      })
      : app
    return HttpIncomingMessage.withMaxBodySize(body, Option.some(maxBodyBytes))
  })
  return Effect.catchAllCause(answer, (cause) => edgeResponse(cause, request, requestId, options, maxBodyBytes))
}

const refusedResponse = (refused: RefusedInput) => Effect.succeed(errorJson(refused.status, { errors: refused.errors }))

/** The default cap, raised for a route whose contract declares a larger one (`MaxBodyBytes`, uploads). */
const bodyCapOf = (request: HttpServerRequest.HttpServerRequest, path: string, options: EdgeOptions): number => {
  if (!options.routes.hasBodyCaps) return options.maxBodyBytes
  return Option.match(options.routes.maxBodyBytes(request.method, path), {
    onNone: () => options.maxBodyBytes,
    onSome: (cap) => Math.max(cap, options.maxBodyBytes)
  })
}

const tooLarge = (maxBodyBytes: number) => errorJson(413, { errors: payloadTooLarge(maxBodyBytes) })

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
  const serverError = errorJson(500, single("SERVER_ERROR", `Internal server error (request_id: ${requestId})`))
  let known: HttpServerResponse.HttpServerResponse | undefined
  try {
    known = knownFailure(Cause.squash(cause), request, options, maxBodyBytes)
  } catch {
    // Answering must never fail: whatever could not be classified is a 500 like any other defect.
  }
  if (known !== undefined) return Effect.succeed(known)
  return Effect.logError("unhandled failure", cause).pipe(
    Effect.annotateLogs({ method: request.method, url: request.url.slice(0, 512) }),
    Effect.catchAllCause(() => Effect.void),
    Effect.as(serverError)
  )
}

/** The answer to a failure that is the client's doing (an unknown route, an unreadable body), if it is one. */
const knownFailure = (
  error: unknown,
  request: HttpServerRequest.HttpServerRequest,
  options: EdgeOptions,
  maxBodyBytes: number
): HttpServerResponse.HttpServerResponse | undefined => {
  if (error instanceof RefusedInput) return errorJson(error.status, { errors: error.errors })
  switch (failureTag(error)) {
    case "RouteNotFound": {
      const allowed = options.routes.allowedMethods(pathOf(request.url))
      // A path the router could not match although its method is allowed there (such as a malformed percent
      // escape) is not a wrong method: it names nothing.
      return allowed.length > 0 && !allowed.includes(request.method)
        ? errorJson(405, single("METHOD_NOT_ALLOWED", `${request.method} is not allowed here`), {
          allow: allowed.join(", ")
        })
        : errorJson(404, single("NOT_FOUND", "No such route"))
    }
    // JSON, form and text bodies are read (capped, checked) by the guard; binary ones by the platform's reader.
    case "RequestError": {
      const inner = (error as { cause?: unknown }).cause
      if (inner instanceof Error && inner.message === "maxBytes exceeded") return tooLarge(maxBodyBytes)
      return errorJson(400, single("BAD_REQUEST", "The request could not be read"))
    }
    case "MultipartError":
      return multipartFailure(error as Multipart.MultipartError, maxBodyBytes)
    default:
      return undefined
  }
}

/** A multipart body the parser refused: over a limit is 413, unparsable is 400; its own internal errors are defects. */
const multipartFailure = (error: Multipart.MultipartError, maxBodyBytes: number) => {
  switch (error.reason) {
    case "FileTooLarge":
    case "FieldTooLarge":
    case "BodyTooLarge":
    case "TooManyParts":
      return tooLarge(maxBodyBytes)
    case "Parse":
      return errorJson(400, single("BAD_REQUEST", "The multipart/form-data body could not be read"))
    default:
      return undefined
  }
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
      ? Effect.succeed(safeDecodeErrorResponse(failure.value))
      : Effect.failCause(cause)
  })
)

/** At most this many entries per 422, each message at most this long: an answer stays small whatever was sent. */
const MAX_ENTRIES = 50
const MAX_MESSAGE = 300

const clip = (message: string) => (message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message)

/** Formatting an answer must never fail: if it does, the client still gets a 422 in the envelope. */
const safeDecodeErrorResponse = (error: HttpApiError.HttpApiDecodeError) => {
  try {
    return decodeErrorResponse(error)
  } catch {
    return errorJson(422, single("VALIDATION_ERROR", "The request is not valid"))
  }
}

const decodeErrorResponse = (error: HttpApiError.HttpApiDecodeError) => {
  if (error.issues.some((i) => i.message === PATH_PARAM_NOT_FOUND)) {
    return errorJson(404, single("NOT_FOUND", "Not found"))
  }
  // A field can fail in several ways (each member of a union); the envelope carries one entry per field.
  const byField = new Map<string, string>()
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".")
    if (!byField.has(field)) byField.set(field, clip(issue.message))
    if (byField.size >= MAX_ENTRIES) break
  }
  // A union reports its member alternatives too ("tags.0: expected string" and "tags: expected undefined");
  // the deepest problem is the useful one, so a field that is an ancestor of another reported field is dropped.
  const fields = [...byField.keys()]
  const isAncestor = (f: string) => fields.some((g) => g !== f && (f === "" || g.startsWith(`${f}.`)))
  const entries = [...byField].filter(([field]) => !isAncestor(field)).map(([field, message]) =>
    field === "" ? { code: "VALIDATION_ERROR", message } : { code: "VALIDATION_ERROR", message, field }
  )
  return errorJson(422, {
    errors: entries.length > 0 ? entries : [{ code: "VALIDATION_ERROR", message: clip(error.message) }]
  })
}
