import { HttpApi, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import {
  Api,
  CreditCommonsDialectDoc,
  CurrentTenant,
  FEDERATION_DIALECT_DOCS,
  FederationCaller,
  JsonApiDialectDoc
} from "@timebank/domain"
import { Effect, Option, SchemaAST as AST } from "effect"
import { lintOpenApi } from "./fixtures/openApiLint.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"

// The parts of the document these tests read.
interface JsonSchema {
  readonly type?: string
  readonly $ref?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly format?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly required?: ReadonlyArray<string>
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly items?: JsonSchema
}
interface Parameter {
  readonly name: string
  readonly in: string
  readonly schema: JsonSchema
}
interface Response {
  readonly $ref?: string
  readonly description?: string
  readonly content?: Readonly<Record<string, { readonly schema: JsonSchema }>>
  readonly headers?: Readonly<Record<string, unknown>>
}
type Requirement = Readonly<Record<string, ReadonlyArray<string>>>
interface Operation {
  readonly operationId: string
  readonly summary?: string
  readonly tags: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<Parameter>
  readonly security: ReadonlyArray<Requirement>
  readonly responses: Readonly<Record<string, Response>>
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>> }
}
interface Document {
  readonly info: { readonly version: string }
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>
    readonly responses: Readonly<Record<string, Response>>
    readonly securitySchemes: Readonly<Record<string, Readonly<Record<string, string>>>>
  }
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description?: string }>
}

const doc = JSON.parse(JSON.stringify(OpenApi.fromApi(Api))) as Document

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op }))
)
const byId = new Map(operations.map((o) => [o.op.operationId, o]))
const operation = (id: string) => {
  const found = byId.get(id)
  assert.isDefined(found, id)
  return found!.op
}
const response = (r: Response): Response =>
  r.$ref === undefined ? r : doc.components.responses[r.$ref.replace("#/components/responses/", "")]!
const bodyOf = (id: string) => operation(id).requestBody!.content["application/json"]!.schema.properties!
const parameter = (id: string, name: string) => operation(id).parameters.find((p) => p.name === name)!.schema

/** What the contract itself declares per operation: the oracle the document is checked against. */
interface Declared {
  readonly tenant: boolean
  readonly auth: "required" | "optional" | "none"
  readonly federation: boolean
  readonly rateLimited: boolean
  readonly codes: ReadonlyMap<number, ReadonlyArray<string>>
}

/** The `errors[].code` literal of each error schema (`httpError`, the 422 envelope) in an error union. */
const codesOf = (ast: AST.AST): Array<string> => {
  if (AST.isUnion(ast)) return ast.types.flatMap(codesOf)
  if (!AST.isTransformation(ast) || !AST.isTypeLiteral(ast.from)) return []
  const errors = ast.from.propertySignatures.find((p) => p.name === "errors")?.type
  if (errors === undefined || !AST.isTupleType(errors)) return []
  const entry = errors.elements[0]?.type ?? errors.rest[0]?.type
  const code = entry !== undefined && AST.isTypeLiteral(entry)
    ? entry.propertySignatures.find((p) => p.name === "code")?.type
    : undefined
  return code !== undefined && AST.isLiteral(code) && typeof code.literal === "string" ? [code.literal] : []
}

const declared = new Map<string, Declared>()
HttpApi.reflect(Api as unknown as HttpApi.HttpApi.AnyWithProps, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, errors, group, middleware }) => {
    const all = [...middleware]
    const security = all.filter(HttpApiMiddleware.isSecurity)
    const federation = all.some((m) => m.provides === FederationCaller)
    declared.set(`${group.identifier}.${endpoint.name}`, {
      tenant: all.some((m) => m.provides === CurrentTenant),
      auth: federation
        ? "required"
        : security.length === 0
        ? "none"
        : security.every((m) => m.optional)
        ? "optional"
        : "required",
      federation,
      rateLimited: all.some((m) => "policy" in m),
      codes: new Map(
        [...errors].map(([status, e]) => [status, Option.match(e.ast, { onNone: () => [], onSome: codesOf })])
      )
    })
  }
})

const TENANTS = ["tenantId", "tenantSlug"]
const CALLERS = ["bearerAuth", "sessionCookie"]
/** A partner route: an API key (bearer or `X-API-Key`) or an HMAC signature, never a tenant header. */
const FEDERATION_SECURITY = [{ federationKey: [] }, { federationApiKey: [] }, { federationSignature: [] }]
const hasAny = (requirement: Requirement, names: ReadonlyArray<string>) => names.some((n) => n in requirement)

describe("the OpenAPI document of the contract", () => {
  it("has Spectral's spectral:oas ruleset find no error and no warning", async () => {
    const findings = await lintOpenApi(doc)
    const show = (severity: string) =>
      findings.filter((f) => f.severity === severity).map((f) => `${f.code} ${f.path}: ${f.message}`)
    assert.deepStrictEqual(show("error"), [])
    assert.deepStrictEqual(show("warning"), [])
  }, 60_000)

  it("documents every route of the contract once, with a summary, a tag and a unique operationId", () => {
    assert.strictEqual(doc.info.version, "2.0.0")
    assert.strictEqual(operations.length, declared.size)
    assert.strictEqual(byId.size, operations.length, "operationIds are unique")
    const tags = new Map(doc.tags.map((t) => [t.name, t]))
    assert.strictEqual(tags.size, doc.tags.length, "tag names are unique")
    for (const { op } of operations) {
      assert.isTrue(declared.has(op.operationId), op.operationId)
      assert.isAbove(op.summary?.trim().length ?? 0, 0, `${op.operationId} has a summary`)
      assert.isAbove(op.tags.length, 0, `${op.operationId} has a tag`)
      for (const tag of op.tags) assert.isAbove(tags.get(tag)?.description?.length ?? 0, 0, `tag ${tag} is described`)
    }
  })

  it("declares bearer auth, the session cookie and the tenant headers as security schemes", () => {
    const schemes = doc.components.securitySchemes
    assert.deepInclude(schemes["bearerAuth"], { type: "http", scheme: "bearer", bearerFormat: "JWT" })
    assert.deepInclude(schemes["sessionCookie"], { type: "apiKey", in: "cookie", name: "tb_session" })
    assert.deepInclude(schemes["tenantId"], { type: "apiKey", in: "header", name: "X-Tenant-ID" })
    assert.deepInclude(schemes["tenantSlug"], { type: "apiKey", in: "header", name: "X-Tenant-Slug" })
  })

  it("requires the tenant and the caller per route as the contract's middleware does", () => {
    for (const { op } of operations) {
      const facts = declared.get(op.operationId)!
      const alternatives = op.security
      if (facts.federation) {
        assert.deepStrictEqual(alternatives, FEDERATION_SECURITY, op.operationId)
        continue
      }
      if (!facts.tenant && facts.auth === "none") {
        assert.deepStrictEqual(alternatives, [], op.operationId)
        continue
      }
      for (const requirement of alternatives) {
        if (facts.tenant) assert.isTrue(hasAny(requirement, TENANTS), `${op.operationId}: tenant in every alternative`)
      }
      const anonymous = alternatives.filter((r) => !hasAny(r, CALLERS))
      const withCaller = alternatives.filter((r) => hasAny(r, CALLERS))
      switch (facts.auth) {
        case "required":
          assert.strictEqual(anonymous.length, 0, `${op.operationId} needs a caller`)
          break
        case "optional":
          assert.isAbove(anonymous.length, 0, `${op.operationId}: a caller is optional`)
          assert.isAbove(withCaller.length, 0, `${op.operationId}: a caller may be given`)
          break
        case "none":
          assert.strictEqual(withCaller.length, 0, `${op.operationId} takes no caller`)
      }
    }
    // The spec's examples, spelled out.
    assert.deepStrictEqual(operation("system.health").security, [])
    assert.deepStrictEqual(operation("auth.login").security, [{ tenantId: [] }, { tenantSlug: [] }])
    assert.deepStrictEqual(operation("categories.list").security, [{ tenantId: [] }, { tenantSlug: [] }])
    for (const id of ["events.list", "events.get", "listings.get"]) {
      assert.deepInclude(operation(id).security, { tenantSlug: [] }, id)
      assert.deepInclude(operation(id).security, { tenantSlug: [], bearerAuth: [] }, id)
    }
    assert.deepInclude(operation("users.me").security, { tenantSlug: [], bearerAuth: [] })
    assert.notDeepInclude(operation("users.me").security, { tenantSlug: [] })
  })

  it("documents every 4xx and 5xx response with the error envelope", () => {
    const envelope = doc.components.schemas["ErrorEnvelope"]!
    assert.deepStrictEqual(envelope.required, ["errors"])
    const entry = envelope.properties!["errors"]!.items!
    assert.deepStrictEqual(entry.required, ["code", "message"])
    assert.deepStrictEqual(Object.keys(entry.properties!), ["code", "message", "field"])
    for (const { op, path } of operations) {
      // Routes in a peer's wire format document its media type and error schema instead (decisions D16).
      const dialect = FEDERATION_DIALECT_DOCS.find((d) => d.documents(path))
      const mediaType = dialect?.mediaType ?? "application/json"
      const schema = `#/components/schemas/${dialect?.errorSchemaName ?? "ErrorEnvelope"}`
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        const content = response(r).content
        assert.deepStrictEqual(Object.keys(content ?? {}), [mediaType], `${op.operationId} ${status}`)
        assert.strictEqual(content![mediaType]!.schema.$ref, schema, `${op.operationId} ${status}`)
      }
    }
    assert.deepStrictEqual(doc.components.schemas["JsonApiErrors"], JsonApiDialectDoc.errorSchema)
    assert.deepStrictEqual(doc.components.schemas["CreditCommonsErrors"], CreditCommonsDialectDoc.errorSchema)
    const text = JSON.stringify(doc)
    for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey", "NumberFromString"]) {
      assert.notProperty(doc.components.schemas, name)
      assert.notInclude(text, `"#/components/schemas/${name}"`)
    }
    assert.notInclude(text, "\"$id\"")
  })

  it("lists per route the statuses and codes it can answer with", () => {
    for (const { method, op, path } of operations) {
      const facts = declared.get(op.operationId)!
      const codes = (status: number) => response(op.responses[status] ?? {}).description ?? ""
      const id = op.operationId
      for (const status of [400, 422, 500]) assert.property(op.responses, String(status), `${id} ${status}`)
      assert.include(codes(422), "`VALIDATION_ERROR`", id)
      assert.include(codes(500), "`SERVER_ERROR`", id)
      if (facts.tenant) assert.include(codes(400), "`tenant_required`", id)
      if (facts.auth !== "none") assert.include(codes(401), "`AUTH_REQUIRED`", id)
      if (path.includes("{")) assert.include(codes(404), "`NOT_FOUND`", id)
      if (op.requestBody !== undefined) assert.include(codes(413), "`PAYLOAD_TOO_LARGE`", id)
      if (facts.rateLimited) {
        assert.include(codes(429), "`RATE_LIMITED`", id)
        assert.property(response(op.responses["429"]!).headers ?? {}, "Retry-After", id)
      }
      // Every typed error the route declares keeps its code, under its status; the CSRF check only concerns
      // unsafe methods.
      for (const [status, list] of facts.codes) {
        for (const code of list) {
          if (code === "CSRF_TOKEN_MISMATCH" && method === "get") continue
          assert.include(codes(status), `\`${code}\``, `${id} ${status}`)
        }
      }
    }
    const rsvp = operation("eventRsvp.rsvp").responses
    assert.include(response(rsvp["409"]!).description, "`EVENT_FULL`")
    assert.include(response(rsvp["403"]!).description, "`KISS_TREFFEN_MEMBERS_ONLY`")
    assert.notInclude(response(operation("users.me").responses["403"] ?? {}).description ?? "", "CSRF")
  })

  it("keeps integer ids and page parameters as integers", () => {
    for (const { op, path } of operations) {
      // Path ids are integers; on the routes in a peer's wire format they are the peer's (UUIDs, Credit Commons'
      // uuid and state as Komunitin takes them), and `{code}` is a currency code with its pattern.
      const peerRoute = FEDERATION_DIALECT_DOCS.some((d) => d.documents(path))
      for (const p of op.parameters) {
        if (p.in === "path" && p.name === "code" && peerRoute) assert.isString(p.schema.pattern, op.operationId)
        // A name with a documented pattern (a job's dotted name) is a string, in paths and filters alike.
        const named = p.schema.type === "string" && p.schema.pattern !== undefined
        if (p.in === "path" && p.schema.enum === undefined && !peerRoute && !named) {
          assert.deepInclude(p.schema, { type: "integer", minimum: 1 }, `${op.operationId} ${p.name}`)
        }
        if (p.in === "query" && /^(page|per_page|.*_id)$/.test(p.name) && !named) {
          assert.strictEqual(p.schema.type, "integer", `${op.operationId} ?${p.name}`)
        }
        if (p.name === "cursor") assert.strictEqual(p.schema.type, "string", `${op.operationId} ?cursor`)
      }
    }
    assert.deepInclude(parameter("events.list", "per_page"), { type: "integer", minimum: 1, maximum: 50 })
    assert.deepInclude(parameter("adminUsers.list", "page"), { type: "integer", minimum: 1 })
    assert.deepInclude(bodyOf("wallet.transfer")["recipient_id"], { type: "integer", minimum: 1 })
    assert.deepInclude(bodyOf("events.create")["max_attendees"]!.anyOf![0], {
      type: "integer",
      minimum: 1,
      maximum: 100000
    })
  })

  it("keeps the contract's string limits and formats, also after trimming", () => {
    assert.deepInclude(bodyOf("listings.create")["title"], { type: "string", minLength: 3, maxLength: 255 })
    assert.deepInclude(bodyOf("auth.register")["email"], { type: "string", maxLength: 254, format: "email" })
    assert.deepInclude(bodyOf("auth.register")["first_name"], { minLength: 1, maxLength: 100 })
    assert.deepInclude(bodyOf("wallet.transfer")["description"], { maxLength: 500 })
    assert.deepInclude(bodyOf("events.create")["online_link"]!.anyOf![0], { maxLength: 2000, format: "uri" })
    assert.deepInclude(bodyOf("superTenants.create")["slug"], { pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$" })
    assert.deepInclude(parameter("events.list", "search"), { type: "string", maxLength: 200 })
    assert.deepInclude(doc.components.schemas["DateTimeUtc"], { type: "string", format: "date-time" })
  })
})

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("the served OpenAPI document", (it) => {
  it.effect("is the contract's document, and the docs page shows it", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/api/v2/openapi.json")
      assert.strictEqual(res.status, 200)
      assert.deepStrictEqual(res.body, doc)
      const page = yield* rawRequest("GET", "/api/docs")
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "X-Tenant-Slug")
      assert.include(page.text, "bearerAuth")
    }))
})
