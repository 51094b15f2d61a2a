import { HttpApi, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Context, Duration, Schema } from "effect"
import { SESSION_COOKIE } from "../identity/Authentication.js"
import { CurrentTenant } from "../tenancy/Tenant.js"
import { ErrorEntry } from "./ApiError.js"
import { documentationCopy } from "./OpenApiSchemas.js"
import type { RateLimitPolicy } from "./RateLimit.js"

/**
 * The body of every error response (decisions D1), as the document shows it: one shared component instead of the
 * framework's decode-error shape and a copy per domain error. Documentation only; the runtime encodes `ErrorBody`.
 */
export const ErrorEnvelope = Schema.Struct({
  errors: Schema.NonEmptyArray(ErrorEntry).annotations({
    description: "One entry per problem; a validation failure has one entry per bad field"
  })
}).annotations({ identifier: "ErrorEnvelope", description: "The body of every error response" })

/**
 * The OpenAPI document of a contract (decisions D11), served at `/api/v2/openapi.json` and by the docs page. It is
 * generated from a documentation copy of the contract (see `documentationCopy`: request limits and integer
 * parameters kept), then completed by rules that read the contract's middleware:
 *
 * 1. Tenant and caller: `X-Tenant-ID` / `X-Tenant-Slug` are apiKey schemes, so the docs page asks for a tenant once.
 *    Routes behind a middleware that provides `CurrentTenant` require one of them; with `Authentication` also
 *    `bearerAuth` (http bearer, JWT) or the session cookie; with `OptionalAuthentication` the tenant alone is an
 *    alternative; routes without a tenant middleware (health) require nothing.
 * 2. Errors: every 4xx/5xx response is the shared `ErrorEnvelope`, and its description lists the `errors[].code`
 *    values the route can answer with: the typed errors it and its middleware declare, plus what the HTTP edge
 *    answers on any route (400 `BAD_REQUEST` / `INVALID_REQUEST`, 422 `VALIDATION_ERROR`, 500 `SERVER_ERROR`), on
 *    routes with a JSON body (400 `INVALID_JSON`) or any body (413), with path ids (404), with a tenant (400
 *    tenant codes), with a caller (401) and behind a rate limit (429 with `Retry-After`; `X-RateLimit-*` on the
 *    route's responses).
 * 3. Hygiene for Spectral's `spectral:oas` ruleset: no `$id`, `{}` schemas as objects, date-times with their format,
 *    unreferenced components dropped, contact and servers present, tags sorted with the admin ones last.
 *
 * The runtime is unchanged: this only shapes the document. Routes added to the contract after this call (test
 * probes) are kept too: rules 1 to 3 apply to them as their declared errors reveal (their request schemas are not
 * rewritten).
 */
export const withOpenApiDocument = <A extends HttpApi.HttpApi.Any>(api: A): A => {
  const self = api as unknown as HttpApi.HttpApi.AnyWithProps
  const facts = operationFacts(self)
  let generated: OpenApi.OpenAPISpec | undefined
  const document = () =>
    generated ??= OpenApi.fromApi(
      documentationCopy(self).annotate(HttpApi.AdditionalSchemas, [
        ...Context.getOrElse(self.annotations, HttpApi.AdditionalSchemas, () => []),
        ErrorEnvelope
      ])
    )
  return self.annotate(
    OpenApi.Transform,
    (spec) => complete(withExtraRoutes(structuredClone(document()), spec as OpenApi.OpenAPISpec), facts)
  ) as unknown as A
}

// ---------------------------------------------------------------------------------------------------------------
// What the contract says about each operation

type Auth = "required" | "optional" | "none"

interface OperationFacts {
  readonly tenant: boolean
  readonly auth: Auth
  readonly rateLimits: ReadonlyArray<RateLimitPolicy>
}

const operationFacts = (api: HttpApi.HttpApi.AnyWithProps): ReadonlyMap<string, OperationFacts> => {
  const facts = new Map<string, OperationFacts>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, middleware }) => {
      const id = Context.getOrElse(
        endpoint.annotations,
        OpenApi.Identifier,
        () => group.topLevel ? endpoint.name : `${group.identifier}.${endpoint.name}`
      )
      const security = [...middleware].filter(HttpApiMiddleware.isSecurity)
      facts.set(id, {
        tenant: [...middleware].some((m) => m.provides === CurrentTenant),
        auth: security.length === 0 ? "none" : security.every((m) => m.optional) ? "optional" : "required",
        rateLimits: [...middleware].flatMap((m) => "policy" in m ? [m.policy as RateLimitPolicy] : [])
      })
    }
  })
  return facts
}

/** For routes the contract did not have when it was annotated: the tenant and caller their errors reveal. */
const inferredFacts = (op: Operation, codes: Codes): OperationFacts => ({
  tenant: codes.get(400)?.has("tenant_required") ?? false,
  auth: op.security.length === 0 ? "none" : codes.get(401)?.has("AUTH_REQUIRED") ? "required" : "optional",
  rateLimits: []
})

// ---------------------------------------------------------------------------------------------------------------
// Completing the document

type Json = Record<string, unknown>
type Operation = OpenApi.OpenAPISpecOperation
type Codes = Map<number, Set<string>>

const ENVELOPE_REF = "#/components/schemas/ErrorEnvelope"
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const withExtraRoutes = (doc: OpenApi.OpenAPISpec, spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (op === undefined || doc.paths[path]?.[method] !== undefined) continue
      doc.paths[path] = { ...doc.paths[path], [method]: structuredClone(op) }
    }
  }
  for (const [name, schema] of Object.entries(spec.components.schemas)) {
    doc.components.schemas[name] ??= structuredClone(schema)
  }
  return doc
}

const complete = (input: OpenApi.OpenAPISpec, facts: ReadonlyMap<string, OperationFacts>): OpenApi.OpenAPISpec => {
  const doc = clean(input) as OpenApi.OpenAPISpec
  const schemas = doc.components.schemas as unknown as Record<string, Json>
  schemas["DateTimeUtc"] = {
    type: "string",
    format: "date-time",
    description: "An ISO 8601 date and time in UTC, such as 2025-06-01T18:30:00.000Z"
  }
  const components = doc.components as unknown as Json
  components["securitySchemes"] = structuredClone(SECURITY_SCHEMES)
  const examples: Record<string, Json> = {}
  const shared = new SharedResponses()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (op === undefined) continue
      const codes = declaredCodes(op, schemas)
      const known = facts.get(op.operationId) ?? inferredFacts(op, codes)
      op.security = securityOf(known)
      describeErrors(op, method, path, known, codes, examples, shared)
    }
  }
  components["responses"] = shared.responses
  components["examples"] = examples
  components["headers"] = structuredClone(HEADERS)
  doc.security = securityOf({ tenant: true, auth: "required", rateLimits: [] })
  doc.tags = sortedTags(doc)
  const info = doc.info as unknown as Json
  info["contact"] ??= { name: "timebank maintainers" }
  doc.servers ??= [{ url: "/", description: "The server that serves this document" }]
  return dropUnused(doc)
}

/**
 * No `$id` (duplicated per use), no titles that only name a check (`maxLength(200)`, `int`: the keywords say it),
 * integers inline (`{"type": "integer", "minimum": 1}` rather than a reference to `Int` with sibling bounds), and
 * `{}` (`Schema.Struct({})`, `Schema.Object`) as an object rather than object-or-array.
 */
const clean = (doc: OpenApi.OpenAPISpec): unknown => ({
  ...JSON.parse(JSON.stringify(doc), (key, value: unknown) => {
    if (key === "$id") return undefined
    if (key === "title" && typeof value === "string" && /^[a-z][A-Za-z]*(\(.*\))?$/.test(value)) return undefined
    if (isJson(value) && value["$ref"] === "#/components/schemas/Int") {
      const { $ref: _, ...rest } = value
      return { type: "integer", ...rest }
    }
    if (isJson(value) && Array.isArray(value["anyOf"]) && isObjectOrArray(value["anyOf"])) {
      const { anyOf: _, ...rest } = value
      return { ...rest, type: "object" }
    }
    return value
  }),
  info: doc.info
})

const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const isObjectOrArray = (anyOf: ReadonlyArray<unknown>) =>
  anyOf.length === 2 && anyOf.every((s) => isJson(s) && Object.keys(s).length === 1) &&
  anyOf.some((s) => isJson(s) && s["type"] === "object") && anyOf.some((s) => isJson(s) && s["type"] === "array")

// ---------------------------------------------------------------------------------------------------------------
// Security

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "`Authorization: Bearer <token>`: the `access_token` of `POST /api/v2/auth/login` " +
      "(legacy JWTs are accepted too). A token is valid only in the community it was issued for."
  },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "The session cookie set by a login with `remember: \"cookie\"`. With it, POST, PUT, PATCH and " +
      "DELETE also need the `X-CSRF-Token` header (from `GET /api/v2/csrf-token`); bearer callers need none."
  },
  tenantId: {
    type: "apiKey",
    in: "header",
    name: "X-Tenant-ID",
    description: "Selects the community by its numeric id. Every route except the health probes needs a " +
      "community: `X-Tenant-ID`, else `X-Tenant-Slug`, else a tenant host name."
  },
  tenantSlug: {
    type: "apiKey",
    in: "header",
    name: "X-Tenant-Slug",
    description: "Selects the community by its slug (such as `acme`); `X-Tenant-ID` wins when both are sent."
  }
}

const securityOf = (facts: OperationFacts): Array<Record<string, Array<string>>> => {
  const tenants = facts.tenant ? [{ tenantId: [] }, { tenantSlug: [] }] : [{}]
  const callers = [{ bearerAuth: [] }, { sessionCookie: [] }]
  const authenticated = callers.flatMap((caller) => tenants.map((tenant) => ({ ...tenant, ...caller })))
  switch (facts.auth) {
    case "required":
      return authenticated
    case "optional":
      return [...authenticated, ...tenants]
    case "none":
      return facts.tenant ? tenants : []
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

/** The `errors[].code` values of the operation's declared error responses, by status. */
const declaredCodes = (op: Operation, schemas: Record<string, Json>): Codes => {
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
  const errors = isJson(schema["properties"]) ? schema["properties"]["errors"] : undefined
  if (!isJson(errors)) return
  const entries = [errors["items"], ...(Array.isArray(errors["prefixItems"]) ? errors["prefixItems"] : [])]
  for (const entry of entries) {
    const code = isJson(entry) && isJson(entry["properties"]) ? entry["properties"]["code"] : undefined
    if (isJson(code) && Array.isArray(code["enum"])) {
      for (const value of code["enum"]) if (typeof value === "string") into.add(value)
    }
  }
}

const describeErrors = (
  op: Operation,
  method: string,
  path: string,
  facts: OperationFacts,
  codes: Codes,
  examples: Record<string, Json>,
  shared: SharedResponses
) => {
  const add = (status: number, code: string) => codes.set(status, (codes.get(status) ?? new Set()).add(code))
  add(400, "BAD_REQUEST")
  add(400, "INVALID_REQUEST")
  if (op.requestBody?.content["application/json"] !== undefined) add(400, "INVALID_JSON")
  if (facts.tenant) {
    add(400, "tenant_required")
    add(400, "tenant_resolution_failed")
  }
  if (facts.auth !== "none") add(401, "AUTH_REQUIRED")
  // The CSRF check applies to unsafe methods only.
  if (method === "get" || method === "head") codes.get(403)?.delete("CSRF_TOKEN_MISMATCH")
  if (path.includes("{")) add(404, "NOT_FOUND")
  if (op.requestBody !== undefined) add(413, "PAYLOAD_TOO_LARGE")
  add(422, "VALIDATION_ERROR")
  if (facts.rateLimits.length > 0) add(429, "RATE_LIMITED")
  add(500, "SERVER_ERROR")

  for (const status of [...codes.keys()].sort((a, b) => a - b)) {
    const list = [...(codes.get(status) ?? [])].sort(byCodeOrder)
    if (list.length === 0) {
      delete op.responses[status]
      continue
    }
    for (const code of list) examples[code] ??= exampleOf(code)
    const explain = (code: string) => {
      const text = code === "AUTH_REQUIRED" && facts.auth !== "required" ? FOREIGN_TOKEN : CODES[code]?.text
      return text === undefined ? `- \`${code}\`` : `- \`${code}\`: ${text}`
    }
    const response: Json = {
      description:
        `${STATUS_TEXT[status] ?? "Error"}${rateLimitText(status, facts)}. \`errors[].code\` is one of:\n\n` +
        list.map(explain).join("\n"),
      content: {
        "application/json": {
          schema: { $ref: ENVELOPE_REF },
          examples: Object.fromEntries(list.map((code) => [code, { $ref: `#/components/examples/${code}` }]))
        }
      },
      ...(status === 429 ? { headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" } } } : {})
    }
    const name = list.map(pascalCase).join("Or") + (list.includes("AUTH_REQUIRED") && facts.auth !== "required"
      ? "OnPublicRoute"
      : "")
    op.responses[status] = (shared.refer(status, name, response) ?? response) as unknown as OpenApi.OpenApiSpecResponse
  }
  if (facts.rateLimits.length > 0) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) >= 300 && Number(status) !== 429) continue
      const json = response as unknown as Json
      json["headers"] = { ...(isJson(json["headers"]) ? json["headers"] : {}), ...RATE_LIMIT_HEADERS }
    }
  }
  for (const parameter of op.parameters) {
    const schema = parameter.schema as unknown as Json
    if (parameter.in === "path" && parameter.description === undefined && schema["type"] === "integer") {
      parameter.description = "A positive integer id; one that names no record of this community is 404"
    }
  }
}

/**
 * Error responses that many routes share word for word (a 500, a 404 with `NOT_FOUND` only, the 400 of every JSON
 * route with a tenant, ...) are one component each, named after their codes. A 429 stays with its route: it
 * names the route's own limit.
 */
class SharedResponses {
  readonly responses: Record<string, Json> = {}

  refer(status: number, base: string, response: Json): Json | undefined {
    if (status === 429) return undefined
    const text = JSON.stringify(response)
    for (let n = 1;; n++) {
      const name = n === 1 ? base : `${base}${n}`
      const known = this.responses[name]
      if (known === undefined) this.responses[name] = response
      else if (JSON.stringify(known) !== text) continue
      return { $ref: `#/components/responses/${name}` }
    }
  }
}

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
  503: "Not ready"
}

const rateLimitText = (status: number, facts: OperationFacts) =>
  status !== 429 || facts.rateLimits.length === 0 ?
    "" :
    ` (${
      facts.rateLimits.map((p) => `at most ${p.limit} per ${windowText(p.window)} per IP address`).join("; ")
    }); retry after \`Retry-After\` seconds`

const windowText = (window: Duration.DurationInput) => {
  const seconds = Duration.toMillis(window) / 1000
  return seconds === 60 ? "minute" : seconds === 3600 ? "hour" : `${seconds} seconds`
}

const FOREIGN_TOKEN = "a bearer token or session cookie was sent that is not valid in this community " +
  "(the route itself needs none)"

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
const byCodeOrder = (a: string, b: string) => {
  const i = ORDER.indexOf(a), j = ORDER.indexOf(b)
  return (i === -1 ? ORDER.length : i) - (j === -1 ? ORDER.length : j) || a.localeCompare(b)
}

const exampleOf = (code: string): Json => {
  const info = CODES[code]
  const entry = { code, message: info?.message ?? code, ...(info?.field === undefined ? {} : { field: info.field }) }
  return { summary: code, value: { errors: [entry] } }
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } })

const HEADERS = {
  "Retry-After": integerHeader("Seconds to wait before trying again"),
  "X-RateLimit-Limit": integerHeader("Requests allowed per window for this caller"),
  "X-RateLimit-Remaining": integerHeader("Requests left in the current window"),
  "X-RateLimit-Reset": integerHeader("When the window resets (unix seconds)")
}

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" }
}

// ---------------------------------------------------------------------------------------------------------------
// Tags and unused components

/** Tags by name, those whose every route is under `/api/v2/admin/` after the others. */
const sortedTags = (doc: OpenApi.OpenAPISpec): Array<OpenApi.OpenAPISpecTag> => {
  const paths = new Map<string, Array<string>>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      for (const tag of item[method]?.tags ?? []) paths.set(tag, [...(paths.get(tag) ?? []), path])
    }
  }
  const isAdmin = (tag: OpenApi.OpenAPISpecTag) =>
    (paths.get(tag.name) ?? []).every((path) => path.startsWith("/api/v2/admin/"))
  const byName = (a: OpenApi.OpenAPISpecTag, b: OpenApi.OpenAPISpecTag) => a.name.localeCompare(b.name)
  return [...doc.tags.filter((t) => !isAdmin(t)).sort(byName), ...doc.tags.filter(isAdmin).sort(byName)]
}

/** Components nothing refers to any more (the framework's decode error, per-error copies) are dropped. */
const dropUnused = (doc: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const components = doc.components as unknown as Record<string, Record<string, unknown>>
  const { components: _, ...rest } = doc
  const used = new Set<string>()
  const pending: Array<unknown> = [rest]
  while (pending.length > 0) {
    JSON.stringify(pending.pop(), (key, value: unknown) => {
      if (key === "$ref" && typeof value === "string" && !used.has(value)) {
        used.add(value)
        const [, , kind, name] = value.split("/")
        if (kind !== undefined && name !== undefined) pending.push(components[kind]?.[name])
      }
      return value
    })
  }
  for (const kind of ["schemas", "responses", "examples", "headers"]) {
    const entries = components[kind] ?? {}
    for (const name of Object.keys(entries)) {
      if (!used.has(`#/components/${kind}/${name}`)) delete entries[name]
    }
  }
  return doc
}
