import type { HttpServerResponse } from "@effect/platform"
import { CURRENCY_PATH_PATTERN, type ErrorEntry, JSON_API_MEDIA_TYPE } from "@timebank/domain"
import { Effect } from "effect"
import { errorEntriesOf, type WireDialect, withContentType, withJsonBody } from "../../platform/WireDialect.js"

/** Komunitin's error codes with their statuses and titles (`accounting/src/utils/error.ts`). */
const KOMUNITIN_ERRORS: Readonly<Record<string, readonly [number, string]>> = {
  BadRequest: [400, "Bad Request"],
  TransactionError: [400, "Transaction Error"],
  NotFound: [404, "Not Found"],
  InternalError: [500, "Internal Error"],
  FieldValidationError: [400, "Field validation Error"],
  Unauthorized: [401, "Unauthorized"],
  Forbidden: [403, "Forbidden"],
  InsufficientBalance: [400, "Insufficient Balance"],
  Conflict: [409, "Conflict"]
}

/** Our generic codes (decisions D1) that Komunitin names otherwise; federation codes (D13) keep theirs. */
const KOMUNITIN_CODE_OF: Readonly<Record<string, string>> = {
  VALIDATION_ERROR: "FieldValidationError",
  BAD_REQUEST: "BadRequest",
  NOT_FOUND: "NotFound",
  FORBIDDEN: "Forbidden",
  AUTH_REQUIRED: "Unauthorized",
  INSUFFICIENT_BALANCE: "InsufficientBalance",
  IDEMPOTENCY_CONFLICT: "Conflict",
  SERVER_ERROR: "InternalError"
}

/** `FEDERATION_DISABLED` → "Federation disabled": a title for the codes Komunitin does not have. */
const titleOf = (code: string) => {
  const words = code.toLowerCase().replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * Komunitin's message for a field that does not validate (`accounting/src/server/errors.ts`); our JSON:API bodies
 * start at `data`, anything else is a query parameter.
 */
const fieldDetail = (field: string) =>
  `Field ${field} is invalid in request ${/^(data|included)(\.|$)/.test(field) ? "body" : "query"}.`

/** A body that fails as a whole (none, or not an object) names no field: Komunitin would call it a bad request. */
const WHOLE_BODY: ErrorEntry = { code: "BAD_REQUEST", message: "The request body is not a JSON:API document" }

/** The one Komunitin error object of our envelope's first entry (Komunitin reports only the first problem). */
export const komunitinError = (status: number, first: ErrorEntry) => {
  const entry = first.code === "VALIDATION_ERROR" && first.field === undefined ? WHOLE_BODY : first
  const code = KOMUNITIN_CODE_OF[entry.code] ?? entry.code
  const known = KOMUNITIN_ERRORS[code]
  const detail = code === "FieldValidationError" && entry.field !== undefined
    ? fieldDetail(entry.field)
    : entry.message
  const finalStatus = known !== undefined && KOMUNITIN_CODE_OF[entry.code] !== undefined ? known[0] : status
  return {
    status: finalStatus,
    body: { errors: [{ status: String(finalStatus), code, title: known?.[1] ?? titleOf(code), detail }] }
  }
}

/**
 * Whether a path is Komunitin's JSON:API: `/api/v1/federation/{CODE}[/…]` except `/{CODE}/cc…` (Credit Commons
 * has its own dialect), and `/api/v1/federation/currencies` (Komunitin's one route outside a currency).
 */
export const isKomunitinPath = (path: string) => {
  const [empty, api, v1, federation, code, next] = path.split("/")
  if (empty !== "" || api !== "api" || v1 !== "v1" || federation !== "federation" || code === undefined) return false
  if (code === "currencies") return true
  return CURRENCY_PATH_PATTERN.test(code) && next !== "cc"
}

const rewrite = (response: HttpServerResponse.HttpServerResponse) => {
  const entries = errorEntriesOf(response)
  const first = entries?.[0]
  if (first === undefined) return Effect.succeed(withContentType(response, JSON_API_MEDIA_TYPE))
  const { body, status } = komunitinError(response.status, first)
  return Effect.succeed(withJsonBody(response, body, { status, contentType: JSON_API_MEDIA_TYPE }))
}

/**
 * Komunitin's JSON:API answers (decisions D16): `application/vnd.api+json` on every response, errors as
 * `{"errors": [{"status": "400", "code", "title", "detail"}]}` with one entry, including those that never reached a
 * handler (the decoder's 422 becomes 400 `FieldValidationError`, an unknown route 404 `NotFound`).
 */
export const KomunitinDialect: WireDialect = {
  name: "komunitin",
  matches: isKomunitinPath,
  rewrite
}
