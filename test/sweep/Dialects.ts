/**
 * The federation routes that answer in a peer's wire format (decisions D16), and why an error body is not in it:
 * every error on `/api/v1/federation/{CODE}/…` is Komunitin's JSON:API error, on `/api/v1/federation/{CODE}/cc…`
 * Credit Commons' list of strings — including what the edge answers before a handler (413, 429, 503, 404).
 */

// A `{CODE}` route is told from our own `/api/v1/federation/<word>` routes by the code's form; any segment before
// `/cc` is a Credit Commons route (a malformed code is its 404).
const CODE_ROUTE = /^\/api\/v1\/federation\/([A-Z0-9]{4}|currencies)(\/|$)/
const CC_ROUTE = /^\/api\/v1\/federation\/[^/]+\/cc(\/|$)/

export type Dialect = "jsonapi" | "credit_commons"

export const dialectOfPath = (path: string): Dialect | undefined =>
  CC_ROUTE.test(path) ? "credit_commons" : CODE_ROUTE.test(path) ? "jsonapi" : undefined

const parsed = (text: string): { readonly body?: unknown; readonly problem?: string } => {
  try {
    return { body: JSON.parse(text) }
  } catch {
    return { problem: "body is not JSON" }
  }
}

/** Komunitin's `{"errors": [{"status": "<digits>", "code", "title", "detail"}]}`, exactly one error. */
const jsonApiProblem = (status: number, body: unknown): string | undefined => {
  const errors = (body as { readonly errors?: unknown } | null)?.errors
  if (!Array.isArray(errors) || errors.length !== 1) return "errors is not a one-element array"
  const error = errors[0] as Record<string, unknown>
  for (const key of ["status", "code", "title", "detail"]) {
    if (typeof error[key] !== "string") return `errors[0].${key} is not a string`
  }
  if (error["status"] !== String(status)) return `errors[0].status ${String(error["status"])} is not ${status}`
  return undefined
}

/** Credit Commons' `{"errors": ["…"]}`. */
const creditCommonsProblem = (body: unknown): string | undefined => {
  const errors = (body as { readonly errors?: unknown } | null)?.errors
  if (!Array.isArray(errors) || errors.length === 0) return "errors is not a non-empty array"
  return errors.every((e) => typeof e === "string") ? undefined : "errors are not strings"
}

/** Why an error response of a dialect route is not in its dialect, or undefined. */
export const dialectProblem = (dialect: Dialect, status: number, text: string): string | undefined => {
  const { body, problem } = parsed(text)
  if (problem !== undefined) return problem
  const found = dialect === "jsonapi" ? jsonApiProblem(status, body) : creditCommonsProblem(body)
  return found === undefined ? undefined : `not a ${dialect} error: ${found}`
}
