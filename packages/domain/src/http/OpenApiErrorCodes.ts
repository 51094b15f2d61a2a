import { type Codes, isJson, type Json, type Operation, propertyOf } from "./OpenApiJson.js"
import type { OperationFacts } from "./OpenApiOperationFacts.js"

/** The `errors[].code` values of the operation's declared error responses, by status. */
export const declaredCodes = (op: Operation, schemas: Record<string, Json>): Codes => {
  const codes: Codes = new Map()
  for (const [status, response] of Object.entries(op.responses)) {
    if (Number(status) < 400) continue
    const found = new Set<string>()
    collectCodes(response.content?.["application/json"]?.schema, schemas, found)
    codes.set(Number(status), found)
  }
  return codes
}

const collectCodes = (schema: unknown, schemas: Record<string, Json>, into: Set<string>): void => {
  if (!isJson(schema)) return
  if (typeof schema["$ref"] === "string") {
    return collectCodes(schemas[schema["$ref"].replace("#/components/schemas/", "")], schemas, into)
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const members = schema[key]
    if (Array.isArray(members)) { for (const member of members) collectCodes(member, schemas, into) }
  }
  const errors = propertyOf(schema, "errors")
  if (!isJson(errors)) return
  const entries = [errors["items"], ...(Array.isArray(errors["prefixItems"]) ? errors["prefixItems"] : [])]
  for (const entry of entries) {
    const code = propertyOf(entry, "code")
    if (isJson(code) && Array.isArray(code["enum"])) {
      for (const value of code["enum"]) if (typeof value === "string") into.add(value)
    }
  }
}

/**
 * Adds what the HTTP edge answers: on any route, on routes with a JSON body or any body, with path ids, with a
 * tenant, with a caller and behind a rate limit. The CSRF check applies to unsafe methods only.
 */
export const addEdgeCodes = (codes: Codes, op: Operation, method: string, path: string, facts: OperationFacts) => {
  const add = (status: number, code: string) => codes.set(status, (codes.get(status) ?? new Set()).add(code))
  add(400, "BAD_REQUEST")
  add(400, "INVALID_REQUEST")
  if (op.requestBody?.content["application/json"] !== undefined) add(400, "INVALID_JSON")
  if (facts.tenant) {
    add(400, "tenant_required")
    add(400, "tenant_resolution_failed")
  }
  if (facts.auth !== "none") add(401, "AUTH_REQUIRED")
  if (method === "get" || method === "head") codes.get(403)?.delete("CSRF_TOKEN_MISMATCH")
  if (path.includes("{")) add(404, "NOT_FOUND")
  if (op.requestBody !== undefined) add(413, "PAYLOAD_TOO_LARGE")
  add(422, "VALIDATION_ERROR")
  if (facts.rateLimits.length > 0) add(429, "RATE_LIMITED")
  add(500, "SERVER_ERROR")
}

/** On a route that needs no caller, `AUTH_REQUIRED` means a credential of another community was sent. */
export const isForeignToken = (code: string, facts: OperationFacts) =>
  code === "AUTH_REQUIRED" && facts.auth !== "required"

const FOREIGN_TOKEN = "a bearer token or session cookie was sent that is not valid in this community " +
  "(the route itself needs none)"

/** The code as a line of a response description, with what it means where that is known. */
export const explainCode = (code: string, facts: OperationFacts) => {
  const text = isForeignToken(code, facts)
    ? FOREIGN_TOKEN
    : facts.federation && code === "AUTH_REQUIRED"
    ? "no API key, signature or federation token was presented"
    : CODES[code]?.text
  return text === undefined ? `- \`${code}\`` : `- \`${code}\`: ${text}`
}

/** The example body of an error with the code. */
export const exampleOf = (code: string): Json => {
  const info = CODES[code]
  const entry = { code, message: info?.message ?? code, ...(info?.field === undefined ? {} : { field: info.field }) }
  return { summary: code, value: { errors: [entry] } }
}

/** Codes in the order of the table below, those it does not list last by name. */
export const byCodeOrder = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b)

const rank = (code: string) => {
  const i = ORDER.indexOf(code)
  return i === -1 ? ORDER.length : i
}

interface CodeInfo {
  readonly text: string
  readonly message: string
  readonly field?: string
}

/** What each code means, in the order responses list them; codes not listed here are shown by name only. */
const CODES: Record<string, CodeInfo> = {
  tenant_required: {
    text: "no `X-Tenant-ID`, `X-Tenant-Slug` or tenant host name names a community",
    message: "Missing X-Tenant-ID or X-Tenant-Slug"
  },
  tenant_resolution_failed: {
    text: "the community named by the header or host does not exist or is suspended",
    message: "Unknown tenant"
  },
  BAD_REQUEST: {
    text: "the request could not be read (malformed HTTP or body)",
    message: "The request could not be read"
  },
  INVALID_REQUEST: {
    text: "the path, the query or a header is not valid percent-encoded UTF-8 or holds control characters " +
      "(`field` names it), or a multipart body has no boundary",
    message: "is not valid percent-encoded UTF-8",
    field: "search"
  },
  INVALID_JSON: {
    text: "the body is not UTF-8 JSON, or is nested deeper than 64 levels",
    message: "Request body is not valid JSON"
  },
  AUTH_REQUIRED: {
    text: "no valid bearer token or session cookie of this community",
    message: "Authentication required"
  },
  FEDERATION_DISABLED: {
    text: "federation is off for this request (the platform switch, the community's whitelist or the route's " +
      "toggle; which one is not said); `Retry-After: 3600`",
    message: "Federation is not available for this request"
  },
  INVALID_API_KEY: { text: "the API key is unknown, revoked or expired", message: "Invalid API key" },
  SIGNATURE_REQUIRED: { text: "the key signs its requests and this one is not signed", message: "Signature required" },
  SIGNATURE_INVALID: {
    text: "the HMAC signature, its headers or its nonce do not hold",
    message: "Invalid signature"
  },
  TIMESTAMP_INVALID: {
    text: "`X-Federation-Timestamp` is not unix seconds or lies more than 300 s from now",
    message: "Timestamp outside the allowed window"
  },
  REPLAY_DETECTED: { text: "the nonce was already used with this key", message: "Replay detected" },
  TENANT_MISMATCH: {
    text: "a tenant header names another community than the key's",
    message: "Tenant does not match the key"
  },
  PERMISSION_DENIED: {
    text: "the key lacks the route's scope, or its partner is not allowed to do this",
    message: "Permission denied"
  },
  AUTH_INVALID_CREDENTIALS: { text: "wrong e-mail or password", message: "Invalid e-mail or password" },
  AUTH_TOKEN_EXPIRED: { text: "the refresh token expired, was revoked or replayed", message: "Token expired" },
  FORBIDDEN: { text: "the caller may not do this", message: "Forbidden" },
  FEATURE_DISABLED: {
    text: "the feature is switched off for this community",
    message: "This feature is disabled for the community"
  },
  CSRF_TOKEN_MISMATCH: {
    text: "a cookie session without the matching `X-CSRF-Token` header",
    message: "CSRF token missing or invalid"
  },
  AUTH_ACCOUNT_PENDING_APPROVAL: { text: "the account awaits approval", message: "Account pending approval" },
  AUTH_ACCOUNT_SUSPENDED: { text: "the account is suspended or banned", message: "Account suspended" },
  KISS_TREFFEN_MEMBERS_ONLY: {
    text: "a members-only community-care meeting; the caller is not an approved member",
    message: "Members only"
  },
  NOT_FOUND: {
    text: "no such record in this community (also for ids that are not positive integers)",
    message: "Event not found"
  },
  ALREADY_EXISTS: { text: "the value is taken (`field` names it)", message: "already exists", field: "name" },
  AUTH_REFRESH_SUPERSEDED: {
    text: "another request of the same client has just rotated this refresh token",
    message: "Refresh token superseded"
  },
  IDEMPOTENCY_CONFLICT: {
    text: "the `Idempotency-Key` was used before with a different request",
    message: "Idempotency-Key reused with a different request"
  },
  EVENT_CANCELLED: { text: "the event is cancelled", message: "The event is cancelled" },
  EVENT_ALREADY_CANCELLED: { text: "the event is already cancelled", message: "The event is already cancelled" },
  EVENT_FULL: { text: "the event is full and the community keeps no waitlist", message: "The event is full" },
  WAITLIST_NOT_NEEDED: {
    text: "places are free, or the caller is already going",
    message: "The event has free places"
  },
  ALREADY_ATTENDED: { text: "the attendee was checked in; the RSVP no longer changes", message: "Already attended" },
  ALREADY_REVIEWED: { text: "the hours were already decided the other way", message: "Already reviewed" },
  PAYLOAD_TOO_LARGE: {
    text: "the body is larger than the route accepts (1 MiB unless the route says otherwise)",
    message: "Request body exceeds 1048576 bytes"
  },
  VALIDATION_ERROR: {
    text: "a value is not valid; one entry per bad field, `field` is its dotted path",
    message: "must be at most 255 characters",
    field: "title"
  },
  INSUFFICIENT_BALANCE: { text: "the paying wallet cannot cover the amount", message: "Insufficient balance" },
  EVENT_ENDED: { text: "the event has already ended (or started)", message: "The event has ended" },
  CHECKIN_WINDOW_CLOSED: {
    text: "outside the check-in window (30 minutes before the start to 24 hours after the end)",
    message: "Check-in window closed"
  },
  NOT_ATTENDING: { text: "the member has no RSVP to the event", message: "Not attending" },
  LISTING_NOT_PENDING: { text: "only a pending listing can be approved", message: "The listing is not pending" },
  RATE_LIMITED: { text: "too many requests", message: "Too many requests; try again in 12 s" },
  SERVER_ERROR: {
    text: "a defect of the service; the message carries a `request_id` to report",
    message: "Internal server error (request_id: 6f1c2b8e-0c4d-4b7a-9a43-2f7d8e1b5c11)"
  },
  SERVICE_UNAVAILABLE: {
    text: "the database (or Redis, when configured) does not answer",
    message: "Service unavailable"
  }
}

const ORDER = Object.keys(CODES)
