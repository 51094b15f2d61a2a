import { HttpMethod, type HttpServerRequest, type Multipart } from "@effect/platform"
import type { ErrorEntry } from "@timebank/domain"
import { Data, Effect, Stream } from "effect"
import { checkUrl, decodeUtf8, describeAt, firstUnstorable, printableName, scanJson } from "./InputScan.js"
import { hasMultipartBoundary } from "./MultipartBoundary.js"
import { type BodyTooLarge, type BodyUnreadable, payloadTooLarge, readBody } from "./RequestBody.js"

/** The longest request target (path and query) we read; longer ones are 414. */
export const MAX_URL_LENGTH = 8 * 1024

/**
 * Input the edge refuses, with the answer to give. Raised as a value by the guard, and as a defect from inside
 * the HttpApi's body readers (which turn every failure into a defect), so the edge answers both the same way.
 */
export class RefusedInput extends Data.TaggedError("RefusedInput")<{
  readonly status: 400 | 413 | 414 | 422
  readonly errors: ReadonlyArray<ErrorEntry>
}> {}

const invalidRequest = (message: string, field?: string) =>
  new RefusedInput({
    status: 400,
    errors: [field === undefined ? { code: "INVALID_REQUEST", message } : { code: "INVALID_REQUEST", message, field }]
  })

const invalidJson = (message: string) => new RefusedInput({ status: 400, errors: [{ code: "INVALID_JSON", message }] })

const unprocessable = (errors: ReadonlyArray<{ readonly field: string; readonly message: string }>) =>
  new RefusedInput({
    status: 422,
    errors: errors.map((e) =>
      e.field === "" ? { code: "VALIDATION_ERROR", message: e.message } : { code: "VALIDATION_ERROR", ...e }
    )
  })

/** Headers the service reads; each must hold text a field may hold (Node already refuses raw CR, LF and NUL). */
const READ_HEADERS = [
  "authorization",
  "cookie",
  "content-type",
  "host",
  "idempotency-key",
  "x-csrf-token",
  "x-forwarded-for",
  "x-request-id",
  "x-tenant-id",
  "x-tenant-slug"
] as const

const checkHeaders = (headers: Readonly<Record<string, string | undefined>>): RefusedInput | undefined => {
  for (const name of READ_HEADERS) {
    const value = headers[name]
    if (value === undefined) continue
    const at = firstUnstorable(value)
    if (at !== -1) return invalidRequest(`header ${name} must not contain ${describeAt(value, at)}`, name)
  }
  return undefined
}

/**
 * How a body is checked: as JSON (the default, as the HttpApi reads it), a form, multipart, text; other (binary)
 * bodies reach the route as bytes, where its schema refuses them.
 */
type BodyKind = "json" | "form" | "text" | "multipart" | "other"

/** JSON under a structured media type (`application/vnd.api+json`, RFC 6839), read as JSON like `application/json`. */
const JSON_SUFFIX = /^\s*application\/[a-z0-9!#$&^_.-]+\+json\s*(;|$)/

const bodyKindOf = (contentType: string | undefined): BodyKind => {
  const type = (contentType ?? "application/json").toLowerCase()
  if (type.includes("application/json") || JSON_SUFFIX.test(type)) return "json"
  if (type.includes("multipart/form-data")) return "multipart"
  if (type.includes("x-www-form-urlencoded")) return "form"
  return type.trimStart().startsWith("text/") ? "text" : "other"
}

/** Whether the request comes with a body at all (a declared length above 0, or chunked). */
export const sendsBody = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  HttpMethod.hasBody(request.method) && sendsBody(request)

const toArrayBuffer = (bytes: Uint8Array) =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer

/**
 * The same request with its body already read: the HttpApi and handlers read the checked text, never the socket
 * again. `json` is the value already parsed.
 */
const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  raw: Uint8Array,
  text: string,
  json: unknown
): HttpServerRequest.HttpServerRequest =>
  Object.create(request, {
    text: { value: Effect.succeed(text) },
    arrayBuffer: { value: Effect.succeed(toArrayBuffer(raw)) },
    json: { value: Effect.succeed(json) },
    modify: {
      value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) =>
        withBody(request.modify(options), raw, text, json)
    }
  })

/** Multipart fields (and file names) are checked as they are read; a refused one ends the request with 422. */
const withCheckedMultipart = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  Object.create(request, {
    // Uploads read whole (`readMultipartForm`) get the same cap, drain and 413 as JSON bodies.
    arrayBuffer: {
      value: Effect.runSync(Effect.cached(
        Effect.map(
          Effect.orDie(readCheckedBody(request)),
          toArrayBuffer
        )
      ))
    },
    multipart: {
      get: () => Effect.tap(request.multipart, (fields) => checkPersisted(fields))
    },
    multipartStream: {
      get: () => Stream.tap(request.multipartStream, (part) => checkPart(part))
    },
    modify: {
      value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) =>
        withCheckedMultipart(request.modify(options))
    }
  })

const refuseString = (field: string, value: string) => {
  const at = firstUnstorable(value)
  return at === -1
    ? Effect.void
    : Effect.die(unprocessable([{ field: printableName(field), message: `must not contain ${describeAt(value, at)}` }]))
}

const checkPersisted = (fields: Multipart.Persisted) =>
  Effect.forEach(Object.entries(fields), ([key, value]) =>
    Effect.zipRight(
      refuseString(key, key),
      typeof value === "string"
        ? refuseString(key, value)
        : Effect.forEach(value, (v: string | Multipart.PersistedFile) =>
          refuseString(key, typeof v === "string" ? v : v.name), { discard: true })
    ), { discard: true })

const checkPart = (part: Multipart.Part) =>
  Effect.zipRight(
    refuseString(part.key, part.key),
    part._tag === "Field" ? refuseString(part.key, part.value) : refuseString(part.key, part.name)
  )

const bodyRefusal = (error: BodyTooLarge | BodyUnreadable) =>
  error._tag === "BodyTooLarge"
    ? new RefusedInput({ status: 413, errors: payloadTooLarge(error.maxBytes) })
    : new RefusedInput({
      status: 400,
      errors: [{ code: "BAD_REQUEST", message: "The request body could not be read" }]
    })

/** The whole body, within the route's cap; what cannot be read is refused like any other bad input. */
const readCheckedBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.mapError(readBody(request), bodyRefusal)

/** Reads and checks a JSON body; answers with the request that carries it. */
const guardJson = (request: HttpServerRequest.HttpServerRequest, raw: Uint8Array) => {
  const text = decodeUtf8(raw)
  if (text === undefined) return Effect.fail(invalidJson("Request body is not valid UTF-8"))
  let value: unknown
  try {
    value = text === "" ? null : JSON.parse(text)
  } catch {
    return Effect.fail(invalidJson("Request body is not valid JSON"))
  }
  const verdict = scanJson(value)
  if (verdict._tag === "TooDeep") return Effect.fail(invalidJson("Request body is nested too deeply"))
  if (verdict._tag === "Refused") return Effect.fail(unprocessable(verdict.strings))
  return Effect.succeed(withBody(asPlainJson(request), raw, text, value))
}

/**
 * A `+json` request as the HttpApi reads bodies: its decoder takes only `application/json` as JSON, so the
 * handler sees that type (the body is already parsed and checked).
 */
const asPlainJson = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const type = request.headers["content-type"]
  if (type === undefined || type.toLowerCase().includes("application/json")) return request
  return request.modify({ headers: { ...request.headers, "content-type": "application/json" } })
}

const guardForm = (request: HttpServerRequest.HttpServerRequest, raw: Uint8Array) => {
  const text = decodeUtf8(raw)
  if (text === undefined) return Effect.fail(invalidRequest("Request body is not valid UTF-8"))
  const refused = checkUrl(`?${text}`)
  if (refused.length > 0) return Effect.fail(unprocessable(refused))
  return Effect.succeed(withBody(request, raw, text, Object.fromEntries(new URLSearchParams(text))))
}

const guardText = (request: HttpServerRequest.HttpServerRequest, raw: Uint8Array) => {
  const text = decodeUtf8(raw)
  if (text === undefined) return Effect.fail(invalidRequest("Request body is not valid UTF-8"))
  const at = firstUnstorable(text)
  if (at !== -1) {
    return Effect.fail(unprocessable([{ field: "", message: `body must not contain ${describeAt(text, at)}` }]))
  }
  return Effect.succeed(withBody(request, raw, text, text))
}

/**
 * The refusal of a request target that is too long (414), not valid percent-encoded UTF-8 or that holds control
 * characters (400 `INVALID_REQUEST`, field = the parameter), or of such a header; undefined when they are clean.
 * Synchronous, so that a request without a body costs no effect.
 */
export const refusedTarget = (request: HttpServerRequest.HttpServerRequest): RefusedInput | undefined => {
  if (request.url.length > MAX_URL_LENGTH) {
    return new RefusedInput({
      status: 414,
      errors: [{ code: "URI_TOO_LONG", message: `The request target is longer than ${MAX_URL_LENGTH} characters` }]
    })
  }
  const [urlRefusal] = checkUrl(request.url)
  if (urlRefusal) return invalidRequest(urlRefusal.message, urlRefusal.field)
  return checkHeaders(request.headers)
}

/**
 * Reads and checks the body of a request whose target and headers passed {@link refusedTarget}: a body that is not
 * UTF-8, not JSON, nested deeper than 64 levels (400 `INVALID_JSON`) or that holds strings a text field must not hold
 * (422 `VALIDATION_ERROR` per field); the same for form and text bodies; multipart without a boundary (400); a body
 * over the route's cap (413, drained). Answers the request to hand on (its body read and checked).
 */
export const guardBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerRequest.HttpServerRequest, RefusedInput> =>
  Effect.suspend(() => {
    if (!hasBody(request)) return Effect.succeed(request)
    const kind = bodyKindOf(request.headers["content-type"])
    if (kind === "multipart") {
      return hasMultipartBoundary(request.headers["content-type"] ?? "")
        ? Effect.succeed(withCheckedMultipart(request))
        : Effect.fail(invalidRequest("multipart/form-data needs a boundary parameter", "content-type"))
    }
    if (kind === "other") return Effect.succeed(request)
    return Effect.flatMap(readCheckedBody(request), (raw) =>
      kind === "json" ? guardJson(request, raw) : kind === "form" ? guardForm(request, raw) : guardText(request, raw))
  })

/**
 * Refuses, in one place for every route, input that no handler should see: {@link refusedTarget}, then
 * {@link guardBody}. Nothing PostgreSQL cannot store gets past it. Returns the request to hand on (its body read
 * and checked), or the refusal.
 *
 * `readsBody` says whether the route exists for this method: a body sent to no route is not read.
 */
export const guardRequest = (
  request: HttpServerRequest.HttpServerRequest,
  readsBody: boolean
): Effect.Effect<HttpServerRequest.HttpServerRequest, RefusedInput> =>
  Effect.suspend(() => {
    const refused = refusedTarget(request)
    if (refused !== undefined) return Effect.fail(refused)
    return readsBody ? guardBody(request) : Effect.succeed(request)
  })
