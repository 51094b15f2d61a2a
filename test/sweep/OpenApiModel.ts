/**
 * The operations of an OpenAPI 3.x document as the sweep needs them: method, path template, parameters with their
 * schemas, request body content types and schema, and whether a tenant and a caller are needed. Written defensively:
 * `$ref` chains (with sibling keywords), `allOf`, `anyOf`/`oneOf`, `nullable` and missing schemas are all handled,
 * so that the document can change without the sweep changing.
 */

export type JsonSchema = { readonly [key: string]: unknown }

export type JsonType = "string" | "number" | "integer" | "boolean" | "array" | "object" | "null"

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface RequestBody {
  readonly contentTypes: ReadonlyArray<string>
  readonly schema: JsonSchema | undefined
  readonly required: boolean
}

export type AuthNeed = "required" | "optional" | "none"

export interface Operation {
  /** `METHOD /path/{template}`: the sweep's name of the operation. */
  readonly key: string
  readonly operationId: string | undefined
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body: RequestBody | undefined
  readonly tenant: boolean
  readonly auth: AuthNeed
}

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"] as const

export const isObject = (u: unknown): u is JsonSchema => typeof u === "object" && u !== null && !Array.isArray(u)

const asArray = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

export class OpenApiModel {
  readonly operations: ReadonlyArray<Operation>
  readonly sessionCookieName: string | undefined

  constructor(readonly document: JsonSchema) {
    if (!isObject(document["paths"])) throw new Error("the OpenAPI document has no paths")
    const schemes = this.pointer("#/components/securitySchemes")
    const cookie = isObject(schemes)
      ? Object.values(schemes).find((s) => isObject(s) && s["type"] === "apiKey" && s["in"] === "cookie")
      : undefined
    this.sessionCookieName = isObject(cookie) && typeof cookie["name"] === "string" ? cookie["name"] : undefined
    this.operations = this.readOperations()
  }

  /** The value a local JSON pointer (`#/components/schemas/X`) names, or undefined. */
  pointer(ref: string): unknown {
    if (!ref.startsWith("#/")) return undefined
    let at: unknown = this.document
    for (const raw of ref.slice(2).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
      if (!isObject(at)) return undefined
      at = at[key]
    }
    return at
  }

  /**
   * A schema with `$ref` followed (its sibling keywords win over the target's, as OpenAPI 3.1 reads them) and
   * `allOf` merged into one object schema. `anyOf`/`oneOf` stay: callers pick members.
   */
  resolve(schema: unknown, seen: ReadonlySet<string> = new Set()): JsonSchema {
    if (!isObject(schema)) return {}
    let current: JsonSchema = schema
    const visited = new Set(seen)
    while (typeof current["$ref"] === "string") {
      const ref = current["$ref"]
      if (visited.has(ref)) return {}
      visited.add(ref)
      const { $ref: _, ...siblings } = current
      current = { ...(isObject(this.pointer(ref)) ? (this.pointer(ref) as JsonSchema) : {}), ...siblings }
    }
    const allOf = asArray(current["allOf"])
    if (allOf.length === 0) return current
    const { allOf: _, ...rest } = current
    let merged: JsonSchema = {}
    const required = new Set<string>(asArray(rest["required"]).filter((r): r is string => typeof r === "string"))
    const properties: Record<string, unknown> = isObject(rest["properties"]) ? { ...rest["properties"] } : {}
    for (const member of allOf) {
      const part = this.resolve(member, visited)
      merged = { ...merged, ...part }
      for (const r of asArray(part["required"])) if (typeof r === "string") required.add(r)
      if (isObject(part["properties"])) Object.assign(properties, part["properties"])
    }
    return {
      ...merged,
      ...rest,
      ...(Object.keys(properties).length > 0 ? { properties, type: rest["type"] ?? merged["type"] ?? "object" } : {}),
      ...(required.size > 0 ? { required: [...required] } : {})
    }
  }

  /** The members of a union schema (anyOf/oneOf), resolved; a schema that is no union is its own only member. */
  members(schema: unknown): ReadonlyArray<JsonSchema> {
    const resolved = this.resolve(schema)
    const union = [...asArray(resolved["anyOf"]), ...asArray(resolved["oneOf"])]
    if (union.length === 0) return [resolved]
    const { anyOf: _a, oneOf: _o, ...rest } = resolved
    return union.flatMap((member) => this.members({ ...rest, ...(isObject(member) ? member : {}) }))
  }

  /** The JSON types a schema accepts (an empty set: anything). */
  types(schema: unknown): ReadonlySet<JsonType> {
    const out = new Set<JsonType>()
    for (const member of this.members(schema)) {
      const type = member["type"]
      const list = Array.isArray(type) ? type : type === undefined ? [] : [type]
      for (const t of list) if (typeof t === "string") out.add(t as JsonType)
      if (type === undefined && isObject(member["properties"])) out.add("object")
      if (type === undefined && Array.isArray(member["enum"])) {
        for (const v of member["enum"]) out.add(v === null ? "null" : typeof v === "number" ? "number" : "string")
      }
      if (member["nullable"] === true) out.add("null")
      if (member["const"] === null) out.add("null")
    }
    if (out.has("integer")) out.add("number")
    return out
  }

  private readOperations(): ReadonlyArray<Operation> {
    const paths = this.document["paths"] as JsonSchema
    const defaultSecurity = this.document["security"]
    const out: Array<Operation> = []
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.resolve(rawItem)
      for (const method of METHODS) {
        const op = item[method]
        if (!isObject(op)) continue
        const parameters = this.parametersOf([...asArray(item["parameters"]), ...asArray(op["parameters"])])
        const security = Array.isArray(op["security"]) ? op["security"] : defaultSecurity
        out.push({
          key: `${method.toUpperCase()} ${path}`,
          operationId: typeof op["operationId"] === "string" ? op["operationId"] : undefined,
          method: method.toUpperCase(),
          path,
          parameters: this.withTemplateParams(path, parameters),
          body: this.bodyOf(op["requestBody"]),
          ...this.securityOf(path, security)
        })
      }
    }
    return out
  }

  /** Later entries (the operation's) override earlier ones (the path item's) with the same name and place. */
  private parametersOf(raw: ReadonlyArray<unknown>): Array<Parameter> {
    const byKey = new Map<string, Parameter>()
    for (const entry of raw) {
      const p = this.resolve(entry)
      const name = p["name"], place = p["in"]
      if (typeof name !== "string" || !["path", "query", "header", "cookie"].includes(String(place))) continue
      const content = isObject(p["content"]) ? Object.values(p["content"])[0] : undefined
      const schema = isObject(p["schema"]) ? p["schema"] : isObject(content) && isObject(content["schema"])
        ? content["schema"]
        : {}
      byKey.set(`${String(place)}:${name}`, {
        name,
        in: place as Parameter["in"],
        required: place === "path" || p["required"] === true,
        schema
      })
    }
    return [...byKey.values()]
  }

  /** A `{name}` of the path the document forgot to declare is still a path parameter (as a string). */
  private withTemplateParams(path: string, parameters: Array<Parameter>): ReadonlyArray<Parameter> {
    for (const match of path.matchAll(/\{([^}]+)\}/g)) {
      const name = match[1]!
      if (!parameters.some((p) => p.in === "path" && p.name === name)) {
        parameters.push({ name, in: "path", required: true, schema: { type: "string" } })
      }
    }
    return parameters
  }

  private bodyOf(raw: unknown): RequestBody | undefined {
    const body = this.resolve(raw)
    if (!isObject(body["content"])) return undefined
    const contentTypes = Object.keys(body["content"])
    if (contentTypes.length === 0) return undefined
    const json = contentTypes.find((t) => t.includes("json")) ?? contentTypes[0]!
    const media = body["content"][json]
    return {
      contentTypes,
      schema: isObject(media) && isObject(media["schema"]) ? media["schema"] : undefined,
      required: body["required"] === true
    }
  }

  /**
   * Tenant and caller from the security requirements: an alternative naming a header/apiKey scheme for the tenant
   * (`X-Tenant-ID`, `X-Tenant-Slug`) means a tenant; one with `http` bearer or the session cookie means a caller,
   * required unless some alternative has neither. Without any requirement: what the path suggests.
   */
  private securityOf(path: string, security: unknown): { tenant: boolean; auth: AuthNeed } {
    const alternatives = asArray(security).filter(isObject)
    if (!Array.isArray(security)) {
      return { tenant: path.startsWith("/api/v2/") && !path.includes("health"), auth: "optional" }
    }
    if (alternatives.length === 0) return { tenant: false, auth: "none" }
    const schemes = this.pointer("#/components/securitySchemes")
    const kind = (name: string): "tenant" | "caller" | "other" => {
      const scheme = isObject(schemes) ? schemes[name] : undefined
      if (!isObject(scheme)) {
        return /tenant/i.test(name)
          ? "tenant"
          : /bearer|cookie|session|auth/i.test(name)
          ? "caller"
          : "other"
      }
      if (scheme["type"] === "http" || scheme["type"] === "oauth2" || scheme["type"] === "openIdConnect") {
        return "caller"
      }
      if (scheme["in"] === "cookie") return "caller"
      if (typeof scheme["name"] === "string" && /tenant/i.test(scheme["name"])) return "tenant"
      return "caller"
    }
    const kindsOf = (alt: JsonSchema) => new Set(Object.keys(alt).map(kind))
    const tenant = alternatives.some((alt) => kindsOf(alt).has("tenant"))
    const withCaller = alternatives.filter((alt) => kindsOf(alt).has("caller")).length
    const auth: AuthNeed = withCaller === 0 ? "none" : withCaller === alternatives.length ? "required" : "optional"
    return { tenant, auth }
  }
}

/** Fetches the document of a running server. */
export const fetchDocument = async (
  send: (path: string) => Promise<{ status: number; text: string }>,
  path = "/api/v2/openapi.json"
): Promise<OpenApiModel> => {
  const response = await send(path)
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text.slice(0, 300)}`)
  return new OpenApiModel(JSON.parse(response.text) as JsonSchema)
}
