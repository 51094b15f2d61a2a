import { Duration } from "effect"
import { isJson, type Json, type Operation, ref } from "./OpenApiJson.js"
import type { OperationFacts } from "./OpenApiOperationFacts.js"

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } })

const RATE_LIMIT_HEADER_TEXT = {
  "X-RateLimit-Limit": "Requests allowed per window for this caller",
  "X-RateLimit-Remaining": "Requests left in the current window",
  "X-RateLimit-Reset": "When the window resets (unix seconds)"
}

/** The header components: `Retry-After` of a 429 and the `X-RateLimit-*` of a rate-limited route's responses. */
export const HEADERS = {
  "Retry-After": integerHeader("Seconds to wait before trying again"),
  ...Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADER_TEXT).map(([name, description]) => [name, integerHeader(description)])
  )
}

const RATE_LIMIT_HEADERS = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADER_TEXT).map((name) => [name, { $ref: ref("headers", name) }])
)

/** A rate-limited route's limits as the description of its 429 response tells them ("" for other statuses). */
export const rateLimitText = (status: number, facts: OperationFacts) =>
  status !== 429 || facts.rateLimits.length === 0 ?
    "" :
    ` (${
      facts.rateLimits.map((p) => `at most ${p.limit} per ${windowText(p.window)} per IP address`).join("; ")
    }); retry after \`Retry-After\` seconds`

const windowText = (window: Duration.DurationInput) => {
  const seconds = Duration.toMillis(window) / 1000
  return seconds === 60 ? "minute" : seconds === 3600 ? "hour" : `${seconds} seconds`
}

/** The `X-RateLimit-*` headers on the success responses and the 429 of a rate-limited route. */
export const addRateLimitHeaders = (op: Operation): void => {
  for (const [status, response] of Object.entries(op.responses)) {
    if (Number(status) >= 300 && Number(status) !== 429) continue
    const json = response as unknown as Json
    json["headers"] = { ...(isJson(json["headers"]) ? json["headers"] : {}), ...RATE_LIMIT_HEADERS }
  }
}
