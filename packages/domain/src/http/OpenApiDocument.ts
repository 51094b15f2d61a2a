import { HttpApi, OpenApi } from "@effect/platform"
import { Context } from "effect"
import { applyDialects, type DocumentedDialect } from "./OpenApiDialects.js"
import { declaredCodes } from "./OpenApiErrorCodes.js"
import { describeErrors, ErrorComponents, ErrorEnvelope } from "./OpenApiErrorResponses.js"
import { clean, DATE_TIME_UTC, dropUnused, sortedTags } from "./OpenApiHygiene.js"
import { type Json, operationsOf } from "./OpenApiJson.js"
import { inferredFacts, type OperationFacts, operationFacts } from "./OpenApiOperationFacts.js"
import { HEADERS } from "./OpenApiRateLimits.js"
import { documentationCopy } from "./OpenApiSchemas.js"
import { SECURITY_SCHEMES, securityOf } from "./OpenApiSecurity.js"

/**
 * The OpenAPI document of a contract (decisions D11), served at `/api/v2/openapi.json` and by the docs page. It is
 * generated from a documentation copy of the contract (see `documentationCopy`: request limits and integer
 * parameters kept), then completed by rules that read the contract's middleware:
 *
 * 1. Tenant and caller: `X-Tenant-ID` / `X-Tenant-Slug` are apiKey schemes, so the docs page asks for a tenant once.
 *    Routes behind a middleware that provides `CurrentTenant` require one of them; with `Authentication` also
 *    `bearerAuth` (http bearer, JWT) or the session cookie; with `OptionalAuthentication` the tenant alone is an
 *    alternative; routes without a tenant middleware (health) require nothing (`OpenApiSecurity.ts`).
 * 2. Errors: every 4xx/5xx response is the shared `ErrorEnvelope`, and its description lists the `errors[].code`
 *    values the route can answer with: the typed errors it and its middleware declare, plus what the HTTP edge
 *    answers on any route (400 `BAD_REQUEST` / `INVALID_REQUEST`, 422 `VALIDATION_ERROR`, 500 `SERVER_ERROR`), on
 *    routes with a JSON body (400 `INVALID_JSON`) or any body (413), with path ids (404), with a tenant (400
 *    tenant codes), with a caller (401) and behind a rate limit (429 with `Retry-After`; `X-RateLimit-*` on the
 *    route's responses) (`OpenApiErrorCodes.ts`, `OpenApiErrorResponses.ts`, `OpenApiRateLimits.ts`).
 * 3. Routes that speak a peer's wire format (`dialects`: Komunitin's JSON:API, Credit Commons) get that format's
 *    media type and error schema (`OpenApiDialects.ts`).
 * 4. Hygiene for Spectral's `spectral:oas` ruleset: no `$id`, `{}` schemas as objects, date-times with their format,
 *    unreferenced components dropped, contact and servers present, tags sorted with the admin ones last
 *    (`OpenApiHygiene.ts`).
 *
 * The runtime is unchanged: this only shapes the document. Routes added to the contract after this call (test
 * probes) are kept too: rules 1 to 4 apply to them as their declared errors reveal (their request schemas are not
 * rewritten).
 */
export const withOpenApiDocument = <A extends HttpApi.HttpApi.Any>(
  api: A,
  dialects: ReadonlyArray<DocumentedDialect> = []
): A => {
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
    (spec) => complete(withExtraRoutes(structuredClone(document()), spec as OpenApi.OpenAPISpec), facts, dialects)
  ) as unknown as A
}

/** The document with the operations and schemas of `spec` (the contract as it is now) that it lacks. */
const withExtraRoutes = (doc: OpenApi.OpenAPISpec, spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  for (const { method, op, path } of operationsOf(spec)) {
    if (doc.paths[path]?.[method] === undefined) doc.paths[path] = { ...doc.paths[path], [method]: structuredClone(op) }
  }
  for (const [name, schema] of Object.entries(spec.components.schemas)) {
    doc.components.schemas[name] ??= structuredClone(schema)
  }
  return doc
}

const complete = (
  input: OpenApi.OpenAPISpec,
  facts: ReadonlyMap<string, OperationFacts>,
  dialects: ReadonlyArray<DocumentedDialect>
): OpenApi.OpenAPISpec => {
  const doc = clean(input)
  const components = doc.components as unknown as Json
  const schemas = doc.components.schemas as unknown as Record<string, Json>
  schemas["DateTimeUtc"] = structuredClone(DATE_TIME_UTC)
  components["securitySchemes"] = structuredClone(SECURITY_SCHEMES)
  const errors = completeOperations(doc, schemas, facts)
  components["responses"] = errors.responses
  applyDialects(doc, dialects, errors.responses)
  components["examples"] = errors.examples
  components["headers"] = structuredClone(HEADERS)
  doc.security = securityOf({ tenant: true, auth: "required" })
  doc.tags = sortedTags(doc)
  const info = doc.info as unknown as Json
  info["contact"] ??= { name: "timebank maintainers" }
  doc.servers ??= [{ url: "/", description: "The server that serves this document" }]
  return dropUnused(doc)
}

/** Rules 1 and 2 on every operation; returns the error responses and examples they share. */
const completeOperations = (
  doc: OpenApi.OpenAPISpec,
  schemas: Record<string, Json>,
  facts: ReadonlyMap<string, OperationFacts>
): ErrorComponents => {
  const errors = new ErrorComponents()
  for (const entry of operationsOf(doc)) {
    const codes = declaredCodes(entry.op, schemas)
    const known = facts.get(entry.op.operationId) ?? inferredFacts(entry.op, codes)
    entry.op.security = securityOf(known)
    describeErrors(entry, known, codes, errors)
  }
  return errors
}
