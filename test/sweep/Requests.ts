import { randomBytes, randomUUID } from "node:crypto"
import type { RawRequest } from "./HttpSender.js"
import { isObject, type JsonSchema, type Operation, type Parameter } from "./OpenApiModel.js"
import { baselineObject, baselineValue, toJsonText, type ValueContext } from "./Values.js"

/**
 * The baseline request of an operation (a plan: path values, query, headers, body) and its rendering to raw HTTP
 * with one change applied. Fuzz cases and the cross-tenant passes are changes of a plan.
 */

export interface Part {
  readonly name: string
  readonly filename?: string
  readonly contentType?: string
  readonly data: string | Uint8Array
}

export type BodyPlan =
  | { readonly kind: "json"; readonly contentType: string; readonly value: unknown; readonly schema: JsonSchema }
  | { readonly kind: "multipart"; readonly parts: ReadonlyArray<Part> }
  | { readonly kind: "text"; readonly contentType: string; readonly text: string }
  /** `application/x-www-form-urlencoded` fields (the OAuth token route). */
  | { readonly kind: "form"; readonly contentType: string; readonly fields: ReadonlyArray<readonly [string, string]> }

export interface Plan {
  readonly op: Operation
  /** Percent-encoded value of each path parameter. */
  readonly path: Readonly<Record<string, string>>
  /** Percent-encoded name/value pairs. */
  readonly query: ReadonlyArray<readonly [string, string]>
  /** Header parameters of the operation (a fresh Idempotency-Key per request). */
  readonly headers: () => Record<string, string>
  readonly body: BodyPlan | undefined
}

/** Tenant and credential headers of whoever sends the request. */
export interface CaseEnv {
  readonly auth: Readonly<Record<string, string>>
  /** Applied to the rendered request last (a partner's HMAC signature over the path and body as sent). */
  readonly finish?: (request: RawRequest) => RawRequest
}

export interface Change {
  readonly path?: Readonly<Record<string, string>>
  /** Replaces the whole path (after the template was filled): trailing slashes, double slashes. */
  readonly pathText?: (filled: string) => string
  readonly query?: ReadonlyArray<readonly [string, string]>
  readonly headers?: Readonly<Record<string, string>>
  /** Header names to leave out (of the env's and the plan's). */
  readonly dropHeaders?: ReadonlyArray<string>
  /** A JSON value instead of the plan's body (serialised with RawJson pieces). */
  readonly json?: { readonly value: unknown }
  /** Raw bytes and content type (null: no Content-Type header) instead of the plan's body; null: no body. */
  readonly raw?: { readonly contentType: string | null; readonly bytes: string | Uint8Array } | null
  readonly method?: string
}

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64"
)

export const encode = (value: string) => encodeURIComponent(value)

/** Is this property a file of a multipart body? */
const isFileSchema = (ctx: ValueContext, schema: unknown, name: string): boolean => {
  const direct = ctx.model.resolve(schema)
  const item = direct["type"] === "array" ? ctx.model.resolve(direct["items"]) : direct
  const ref = isObject(schema) && typeof schema["$ref"] === "string" ? schema["$ref"] : ""
  const itemRef = isObject(direct["items"]) && typeof direct["items"]["$ref"] === "string"
    ? direct["items"]["$ref"]
    : ""
  return item["format"] === "binary" || /file/i.test(ref + itemRef) || /^(file|image|photo|avatar|logo)$/i.test(name)
}

/** File content by what the field seems to want: an image (a real 1×1 PNG) or a CSV of users. */
export const fileFor = (name: string, ctx: ValueContext): Part =>
  /image|photo|avatar|logo/i.test(name)
    ? { name, filename: "sweep.png", contentType: "image/png", data: PNG_1X1 }
    : {
      name,
      filename: "sweep.csv",
      contentType: "text/csv",
      data: `email,first_name,last_name,role\nsweep-import-${ctx.unique}@example.org,Sweep,Import,member\n`
    }

const multipartParts = (ctx: ValueContext, schema: JsonSchema | undefined): Array<Part> => {
  const resolved = ctx.model.resolve(schema)
  const properties = isObject(resolved["properties"]) ? resolved["properties"] : {}
  const parts: Array<Part> = []
  for (const [name, prop] of Object.entries(properties)) {
    if (isFileSchema(ctx, prop, name)) parts.push(fileFor(name, ctx))
    else parts.push({ name, data: String(baselineValue(ctx, prop, name)) })
  }
  if (parts.length === 0) parts.push(fileFor("file", ctx))
  return parts
}

/** A multipart/form-data body of the parts, with its content type. */
export const multipart = (parts: ReadonlyArray<Part>, boundary = `sweep${randomBytes(8).toString("hex")}`) => {
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${
      part.filename === undefined ? "" : `; filename="${part.filename}"`
    }`
    chunks.push(Buffer.from(
      `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
        (part.contentType === undefined ? "" : `Content-Type: ${part.contentType}\r\n`) + "\r\n",
      "utf8"
    ))
    chunks.push(typeof part.data === "string" ? Buffer.from(part.data, "utf8") : Buffer.from(part.data))
    chunks.push(Buffer.from("\r\n"))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(chunks) }
}

export const paramsOf = (op: Operation, place: Parameter["in"]) => op.parameters.filter((p) => p.in === place)

/** The baseline plan of an operation: path values as given, required query parameters, required-only body. */
export const makePlan = (op: Operation, ctx: ValueContext, path: Readonly<Record<string, string>>): Plan => {
  const query = paramsOf(op, "query")
    .filter((p) => p.required)
    .map((p) => [p.name, encode(String(baselineValue(ctx, p.schema, p.name)))] as const)
  const headerParams = paramsOf(op, "header")
  const headers = () =>
    Object.fromEntries(headerParams.map((p) => [
      p.name.toLowerCase(),
      /idempotency/i.test(p.name) ? randomUUID() : String(baselineValue(ctx, p.schema, p.name))
    ]))
  return { op, path, query, headers, body: bodyPlan(op, ctx) }
}

const bodyPlan = (op: Operation, ctx: ValueContext): BodyPlan | undefined => {
  const body = op.body
  if (body === undefined) return undefined
  const json = body.contentTypes.find((t) => t.includes("json"))
  if (json !== undefined) {
    const schema = ctx.model.resolve(body.schema)
    const members = ctx.model.members(body.schema)
    const objectMember = members.find((m) => isObject(m["properties"]) || m["type"] === "object")
    const value = objectMember !== undefined
      ? baselineObject(ctx, objectMember)
      : baselineValue(ctx, body.schema, "body")
    return { kind: "json", contentType: json, value, schema: objectMember ?? schema }
  }
  const form = body.contentTypes.find((t) => t.startsWith("multipart/"))
  if (form !== undefined) return { kind: "multipart", parts: multipartParts(ctx, body.schema) }
  const urlEncoded = body.contentTypes.find((t) => t.startsWith("application/x-www-form-urlencoded"))
  if (urlEncoded !== undefined) return { kind: "form", contentType: urlEncoded, fields: formFields(ctx, body.schema) }
  const contentType = body.contentTypes[0]!
  return { kind: "text", contentType, text: String(baselineValue(ctx, body.schema, "body")) }
}

/** A form's required fields and those the context overrides (`grant_type`), as strings. */
const formFields = (ctx: ValueContext, schema: JsonSchema | undefined): Array<readonly [string, string]> => {
  const resolved = ctx.model.resolve(schema)
  const properties = isObject(resolved["properties"]) ? resolved["properties"] : {}
  const required = Array.isArray(resolved["required"]) ? resolved["required"].map(String) : []
  return Object.keys(properties)
    .filter((name) => required.includes(name) || (ctx.overrides !== undefined && name in ctx.overrides))
    .map((name) => [name, String(baselineValue(ctx, properties[name], name))] as const)
}

/** A form body's text. */
export const formText = (fields: ReadonlyArray<readonly [string, string]>) =>
  new URLSearchParams(fields.map(([k, v]): [string, string] => [k, v])).toString()

/** The path with its parameters filled in (values already encoded). */
export const fillPath = (template: string, values: Readonly<Record<string, string>>) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? "1")

const bodyOf = (plan: Plan, change: Change): { contentType: string | null; bytes: string | Uint8Array } | null => {
  if (change.raw !== undefined) return change.raw
  if (change.json !== undefined) {
    const contentType = plan.body?.kind === "json" ? plan.body.contentType : "application/json"
    return { contentType, bytes: toJsonText(change.json.value) }
  }
  const body = plan.body
  if (body === undefined) return null
  switch (body.kind) {
    case "json":
      return { contentType: body.contentType, bytes: toJsonText(body.value) }
    case "multipart":
      return multipart(body.parts)
    case "text":
      return { contentType: body.contentType, bytes: body.text }
    case "form":
      return { contentType: body.contentType, bytes: formText(body.fields) }
  }
}

/** The raw request of a plan with one change, sent by whoever `env` names. */
export const render = (plan: Plan, env: CaseEnv, change: Change = {}): RawRequest => {
  const filled = fillPath(plan.op.path, { ...plan.path, ...change.path })
  const path = change.pathText === undefined ? filled : change.pathText(filled)
  const query = change.query ?? plan.query
  const search = query.length === 0 ? "" : `?${query.map(([k, v]) => `${k}=${v}`).join("&")}`
  const drop = new Set((change.dropHeaders ?? []).map((h) => h.toLowerCase()))
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...env.auth, ...plan.headers(), ...change.headers })) {
    if (!drop.has(k.toLowerCase())) headers[k.toLowerCase()] = v
  }
  const body = bodyOf(plan, change)
  if (body !== null && body.contentType !== null && headers["content-type"] === undefined) {
    headers["content-type"] = body.contentType
  }
  const request: RawRequest = {
    method: change.method ?? plan.op.method,
    path: path + search,
    headers,
    ...(body === null ? {} : { body: body.bytes })
  }
  return env.finish === undefined ? request : env.finish(request)
}
