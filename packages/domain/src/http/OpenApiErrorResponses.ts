import type { OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ErrorEntry } from "./ApiError.js"
import { addEdgeCodes, byCodeOrder, exampleOf, explainCode, isForeignToken } from "./OpenApiErrorCodes.js"
import { type Codes, type Json, type Operation, type OperationEntry, ref } from "./OpenApiJson.js"
import type { OperationFacts } from "./OpenApiOperationFacts.js"
import { addRateLimitHeaders, rateLimitText } from "./OpenApiRateLimits.js"

/**
 * The body of every error response (decisions D1), as the document shows it: one shared component instead of the
 * framework's decode-error shape and a copy per domain error. Documentation only; the runtime encodes `ErrorBody`.
 */
export const ErrorEnvelope = Schema.Struct({
  errors: Schema.NonEmptyArray(ErrorEntry).annotations({
    description: "One entry per problem; a validation failure has one entry per bad field"
  })
}).annotations({ identifier: "ErrorEnvelope", description: "The body of every error response" })

/** The error responses and the examples that operations share, collected as components. */
export class ErrorComponents {
  readonly responses: Record<string, Json> = {}
  readonly examples: Record<string, Json> = {}

  /** A reference to the example of an error with the code. */
  example(code: string): Json {
    this.examples[code] ??= exampleOf(code)
    return { $ref: ref("examples", code) }
  }

  /**
   * Error responses that many routes share word for word (a 500, a 404 with `NOT_FOUND` only, the 400 of every
   * JSON route with a tenant, ...) are one component each, named after their codes. A 429 stays with its route:
   * it names the route's own limit.
   */
  share(status: number, base: string, response: Json): Json {
    if (status === 429) return response
    const text = JSON.stringify(response)
    let name = base
    for (let n = 2; this.responses[name] !== undefined && JSON.stringify(this.responses[name]) !== text; n++) {
      name = `${base}${n}`
    }
    this.responses[name] ??= response
    return { $ref: ref("responses", name) }
  }
}

/**
 * Completes the operation's error responses: each 4xx/5xx is the `ErrorEnvelope` and lists the codes the route
 * declares and those of the HTTP edge; a status left without codes is dropped.
 */
export const describeErrors = (
  { method, op, path }: OperationEntry,
  facts: OperationFacts,
  codes: Codes,
  components: ErrorComponents
): void => {
  addEdgeCodes(codes, op, method, path, facts)
  for (const [status, found] of [...codes].sort(([a], [b]) => a - b)) {
    const list = [...found].sort(byCodeOrder)
    if (list.length === 0) {
      delete op.responses[status]
      continue
    }
    const response = components.share(status, responseName(list, facts), errorResponse(status, list, facts, components))
    op.responses[status] = response as unknown as OpenApi.OpenApiSpecResponse
  }
  if (facts.rateLimits.length > 0) addRateLimitHeaders(op)
  describePathIds(op)
}

const errorResponse = (
  status: number,
  list: ReadonlyArray<string>,
  facts: OperationFacts,
  components: ErrorComponents
): Json => ({
  description: `${STATUS_TEXT[status] ?? "Error"}${rateLimitText(status, facts)}. \`errors[].code\` is one of:\n\n` +
    list.map((code) => explainCode(code, facts)).join("\n"),
  content: {
    "application/json": {
      schema: { $ref: ref("schemas", "ErrorEnvelope") },
      examples: Object.fromEntries(list.map((code) => [code, components.example(code)]))
    }
  },
  ...(status === 429 ? { headers: { "Retry-After": { $ref: ref("headers", "Retry-After") } } } : {})
})

const responseName = (list: ReadonlyArray<string>, facts: OperationFacts) =>
  list.map(pascalCase).join("Or") + (list.some((code) => isForeignToken(code, facts)) ? "OnPublicRoute" : "")

const pascalCase = (code: string) =>
  code.toLowerCase().split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("")

const STATUS_TEXT: Record<number, string> = {
  400: "The request cannot be read",
  401: "Not authenticated",
  403: "Not allowed",
  404: "Not found",
  409: "Conflict with the current state",
  413: "The body is too large",
  422: "The request is not valid",
  429: "Too many requests",
  500: "A defect of the service",
  503: "Unavailable"
}

/** Integer path parameters are record ids, and an unknown one is the 404 the responses list. */
const describePathIds = (op: Operation): void => {
  for (const parameter of op.parameters) {
    const schema = parameter.schema as unknown as Json
    if (parameter.in === "path" && parameter.description === undefined && schema["type"] === "integer") {
      parameter.description = "A positive integer id; one that names no record of this community is 404"
    }
  }
}
