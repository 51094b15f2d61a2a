import { createHash } from "node:crypto"
import {
  CURSOR_PAYLOADS,
  EDGE_HEADERS,
  nested,
  nestedArray,
  PATH_VALUES,
  QUERY_VALUES,
  valueFuzz
} from "./FuzzValues.js"
import { isObject, type JsonSchema } from "./OpenApiModel.js"
import { type Change, formText, multipart, paramsOf, type Part, type Plan } from "./Requests.js"
import { RawJson, type ValueContext } from "./Values.js"

/**
 * Fuzz cases of one operation, each a change of its baseline plan: path and query parameters, headers, every body
 * property (missing, wrong type, control characters, lone surrogates, huge strings, numbers out of range), whole
 * bodies (not objects, deep nesting, invalid UTF-8) and wrong content types.
 */

export type Category = "baseline" | "path" | "query" | "header" | "property" | "body" | "content-type" | "edge"

export interface FuzzCase {
  readonly name: string
  readonly category: Category
  /** Input the server promises to refuse (control characters, lone surrogates): a 2xx is a violation. */
  readonly mustRefuse: boolean
  readonly change: Change
}

interface PropertyPath {
  readonly path: ReadonlyArray<string | number>
  readonly schema: unknown
  readonly required: boolean
}

/** Every property of a body schema down to `maxDepth` levels, with array items as index 0. */
const propertiesOf = (ctx: ValueContext, schema: unknown, prefix: Array<string | number> = [], depth = 0) => {
  const out: Array<PropertyPath> = []
  if (depth > 3) return out
  for (const member of ctx.model.members(schema)) {
    if (isObject(member["properties"])) {
      const required = Array.isArray(member["required"]) ? member["required"].map(String) : []
      for (const [key, prop] of Object.entries(member["properties"])) {
        const path = [...prefix, key]
        out.push({ path, schema: prop, required: required.includes(key) })
        out.push(...propertiesOf(ctx, prop, path, depth + 1))
      }
    } else if (member["type"] === "array" && member["items"] !== undefined && depth > 0) {
      out.push(...propertiesOf(ctx, member["items"], [...prefix, 0], depth + 1))
    }
  }
  const seen = new Set<string>()
  return out.filter((p) => {
    const key = p.path.join(".")
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const clone = <A>(value: A): A => (value === undefined ? value : structuredClone(value))

/** The baseline with the value at `path` replaced (or removed), creating containers on the way. */
const setAt = (base: unknown, path: ReadonlyArray<string | number>, value: unknown, remove = false): unknown => {
  const root: unknown = isObject(base) || Array.isArray(base) ? clone(base) : {}
  let at = root as Record<string | number, unknown>
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!
    const next = at[key]
    if (!(typeof next === "object" && next !== null)) at[key] = typeof path[i + 1] === "number" ? [] : {}
    at = at[key] as Record<string | number, unknown>
  }
  const last = path[path.length - 1]!
  if (remove) delete at[last]
  else at[last] = value
  return root
}

export const fuzzCases = (plan: Plan, ctx: ValueContext): Array<FuzzCase> => {
  const op = plan.op
  const cases: Array<FuzzCase> = [{ name: "baseline", category: "baseline", mustRefuse: false, change: {} }]
  const add = (category: Category, name: string, change: Change, mustRefuse = false) =>
    cases.push({ name, category, change, mustRefuse })

  for (const p of paramsOf(op, "path")) {
    for (const [label, value] of PATH_VALUES) {
      add("path", `path ${p.name}: ${label}`, { path: { [p.name]: value } }, label === "%00")
    }
  }
  add("path", "trailing slash", { pathText: (filled) => `${filled}/` })
  add("path", "double slash", { pathText: (filled) => filled.replace("/", "//") })
  add("path", "upper case path", { pathText: (filled) => filled.toUpperCase() })

  const queryParams = paramsOf(op, "query")
  for (const p of queryParams) {
    const others = plan.query.filter(([k]) => k !== p.name)
    for (const [label, value, refuse] of QUERY_VALUES) {
      add("query", `query ${p.name}: ${label}`, { query: [...others, [p.name, value]] }, refuse)
    }
    if (/cursor|after|before/i.test(p.name)) {
      for (const [label, json] of CURSOR_PAYLOADS) {
        const value = Buffer.from(json, "utf8").toString("base64url")
        add("query", `query ${p.name}: cursor of ${label}`, { query: [...others, [p.name, value]] })
      }
    }
    add("query", `query ${p.name}: repeated`, { query: [...others, [p.name, "1"], [p.name, "2"]] })
    add("query", `query ${p.name}: bracket array`, { query: [...others, [`${p.name}%5B%5D`, "1"]] })
  }
  add("query", "unknown query parameter", { query: [...plan.query, ["sweep_unknown", "1"]] })
  add("query", "query without value", { query: [...plan.query, ["flag", ""]] })

  for (const p of paramsOf(op, "header")) {
    const name = p.name.toLowerCase()
    add("header", `header ${p.name}: empty`, { headers: { [name]: "" } })
    add("header", `header ${p.name}: 300 characters`, { headers: { [name]: "h".repeat(300) } })
    add("header", `header ${p.name}: latin-1`, { headers: { [name]: "caf\u00e9" } })
  }
  for (const [label, headers] of EDGE_HEADERS) add("edge", label, { headers })
  add("edge", "no tenant header", { dropHeaders: ["x-tenant-id", "x-tenant-slug"] })
  add("edge", "no credentials", { dropHeaders: ["authorization", "cookie"] })

  const body = plan.body
  if (body?.kind === "json") jsonCases(ctx, body.value, body.schema, add)
  else if (body?.kind === "multipart") multipartCases(body.parts, add)
  else if (body?.kind === "form") formCases(ctx, plan, body.fields, add)
  else {
    add("body", "unexpected JSON body", { raw: { contentType: "application/json", bytes: "{\"sweep\":1}" } })
    add("body", "unexpected binary body", {
      raw: { contentType: "application/octet-stream", bytes: Uint8Array.from([0, 255, 254, 1, 2]) }
    })
  }
  add("body", "body over 1 MiB", {
    raw: { contentType: "application/json", bytes: `{"a":"${"b".repeat(1_100_000)}"}` }
  })
  return cases
}

type Add = (category: Category, name: string, change: Change, mustRefuse?: boolean) => void

const jsonCases = (ctx: ValueContext, value: unknown, schema: JsonSchema, add: Add) => {
  const text = () => JSON.stringify(value)
  for (const prop of propertiesOf(ctx, schema).slice(0, 80)) {
    const label = prop.path.join(".")
    if (prop.required) {
      add("property", `${label}: missing`, { json: { value: setAt(value, prop.path, undefined, true) } })
    }
    for (const fuzz of valueFuzz(ctx, prop.schema, String(prop.path[prop.path.length - 1] ?? ""))) {
      add(
        "property",
        `${label}: ${fuzz.label}`,
        { json: { value: setAt(value, prop.path, fuzz.value) } },
        fuzz.mustRefuse
      )
    }
  }
  add("property", "NUL in a property name", { json: { value: { ...asObject(value), "ti\u0000tle": "x" } } }, true)
  add("body", "empty body", { raw: { contentType: "application/json", bytes: "" } })
  for (
    const [label, bytes] of [
      ["array", "[]"],
      ["number", "123"],
      ["string", "\"sweep\""],
      ["null", "null"],
      [
        "true",
        "true"
      ],
      ["empty object", "{}"],
      ["truncated", "{\"a\":"],
      ["trailing garbage", "{} x"],
      [
        "duplicate keys",
        "{\"a\":1,\"a\":2}"
      ],
      ["BOM prefix", `\ufeff${text()}`],
      ["single quotes", "{'a':1}"],
      ["NaN", "{\"a\":NaN}"]
    ] as const
  ) {
    add("body", `body ${label}`, { raw: { contentType: "application/json", bytes } })
  }
  add("body", "100-deep object", { json: { value: nested(100) } })
  add("body", "100-deep array", { json: { value: nestedArray(100) } })
  add("body", "10000-deep array", { json: { value: nestedArray(10_000) } })
  add("body", "baseline plus 100-deep property", { json: { value: { ...asObject(value), sweep_deep: nested(100) } } })
  add("body", "invalid UTF-8 in a string", {
    raw: {
      contentType: "application/json",
      bytes: Buffer.concat([Buffer.from("{\"title\":\"a"), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from("\"}")])
    }
  })
  add("body", "overlong UTF-8 NUL", {
    raw: {
      contentType: "application/json",
      bytes: Buffer.concat([Buffer.from("{\"title\":\"a"), Buffer.from([0xc0, 0x80]), Buffer.from("\"}")])
    }
  })
  add("body", "CESU-8 surrogate bytes", {
    raw: {
      contentType: "application/json",
      bytes: Buffer.concat([Buffer.from("{\"title\":\""), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("\"}")])
    }
  })
  add("body", "__proto__ pollution", {
    json: { value: new RawJson(`{"__proto__":{"is_admin":true},"constructor":{"prototype":{"x":1}}}`) }
  })
  for (
    const [label, contentType, bytes] of [
      ["text/plain", "text/plain", text()],
      ["application/xml", "application/xml", "<?xml version=\"1.0\"?><sweep><a>1</a></sweep>"],
      ["form-urlencoded", "application/x-www-form-urlencoded", "a=1&b=%00&c[]=x"],
      ["multipart without boundary", "multipart/form-data", text()],
      ["multipart with JSON inside", `multipart/form-data; boundary=sweep`, text()],
      ["json with latin-1 charset", "application/json; charset=iso-8859-1", text()],
      ["json with utf-16 charset", "application/json; charset=utf-16", text()],
      ["garbage content type", "???/;;", text()],
      ["vendor json", "application/vnd.api+json", text()]
    ] as const
  ) {
    add("content-type", `content type ${label}`, { raw: { contentType, bytes } })
  }
  add("content-type", "no content type", { raw: { contentType: null, bytes: text() } })
}

const multipartCases = (parts: ReadonlyArray<Part>, add: Add) => {
  const files = parts.filter((p) => p.filename !== undefined)
  const texts = parts.filter((p) => p.filename === undefined)
  const withParts = (label: string, list: ReadonlyArray<Part>, mustRefuse = false) => {
    const body = multipart(list)
    add("body", label, { raw: { contentType: body.contentType, bytes: body.bytes } }, mustRefuse)
  }
  withParts("NUL in a text field", [...parts, { name: "note", data: "a\u0000b" }])
  withParts("NUL in a field name", [...parts, { name: "no\u0000te", data: "x" }])
  withParts("random bytes as the file", [
    ...texts,
    ...files.map((f) => ({ ...f, data: Uint8Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256) }))
  ])
  withParts("empty file", [...texts, ...files.map((f) => ({ ...f, data: "" }))])
  withParts("no file part", texts.length > 0 ? texts : [{ name: "other", data: "x" }])
  withParts("file name with traversal and NUL", files.map((f) => ({ ...f, filename: "../../etc/pa\u0000sswd" })))
  withParts("file name of 5000 characters", files.map((f) => ({ ...f, filename: `${"n".repeat(5000)}.png` })))
  withParts("the file twice", [...parts, ...files])
  withParts("60 parts", Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, data: "x" })))
  withParts("no parts at all", [])
  add("body", "empty multipart body", { raw: { contentType: multipart([]).contentType, bytes: "" } })
  const body = multipart(parts)
  add("content-type", "multipart without boundary", { raw: { contentType: "multipart/form-data", bytes: body.bytes } })
  add("content-type", "multipart with another boundary", {
    raw: { contentType: "multipart/form-data; boundary=not-the-one", bytes: body.bytes }
  })
  add("content-type", "multipart truncated", {
    raw: { contentType: body.contentType, bytes: body.bytes.subarray(0, Math.floor(body.bytes.byteLength / 2)) }
  })
  add("content-type", "JSON instead of multipart", { raw: { contentType: "application/json", bytes: "{\"a\":1}" } })
  add("content-type", "no content type", { raw: { contentType: null, bytes: body.bytes } })
}

/** Form bodies (`application/x-www-form-urlencoded`): each field missing, repeated, odd or hostile; other bodies. */
const formCases = (ctx: ValueContext, plan: Plan, fields: ReadonlyArray<readonly [string, string]>, add: Add) => {
  const contentType = "application/x-www-form-urlencoded"
  const raw = (bytes: string | Uint8Array) => ({ raw: { contentType, bytes } })
  const schema = ctx.model.resolve(plan.op.body?.schema)
  const names = new Set([
    ...fields.map(([k]) => k),
    ...Object.keys(isObject(schema["properties"]) ? schema["properties"] : {})
  ])
  for (const name of names) {
    const others = fields.filter(([k]) => k !== name)
    const current = fields.find(([k]) => k === name)?.[1] ?? "x"
    const withValue = (value: string) => formText([...others, [name, value]])
    // A raw `name=value` after the other fields, for what URLSearchParams would escape.
    const withRaw = (pair: string) => [formText(others), pair].filter((p) => p !== "").join("&")
    if (fields.some(([k]) => k === name)) add("property", `${name}: missing`, raw(formText(others)))
    add("property", `${name}: NUL`, raw(withValue("a\u0000b")), true)
    add("property", `${name}: C0 controls`, raw(withValue("a\u0001\u001f")), true)
    add("property", `${name}: %ff`, raw(withRaw(`${name}=%ff`)), true)
    add("property", `${name}: malformed escape`, raw(withRaw(`${name}=%zz`)))
    add("property", `${name}: 100k value`, raw(withValue("x".repeat(100_000))))
    add("property", `${name}: empty`, raw(withValue("")))
    add("property", `${name}: other value`, raw(withValue("sweep-other")))
    add("property", `${name}: repeated`, raw(`${formText(fields)}&${name}=${encodeURIComponent(current)}`))
    add("property", `${name}: bracket array`, raw(withRaw(`${name}%5B%5D=${encodeURIComponent(current)}`)))
  }
  add("body", "empty body", raw(""))
  add("body", "5000 fields", raw(Array.from({ length: 5000 }, (_, i) => `f${i}=x`).join("&")))
  add(
    "body",
    "invalid UTF-8",
    raw(Buffer.concat([Buffer.from(`${formText(fields)}&a=`), Buffer.from([0xc3, 0x28, 0xff])]))
  )
  for (
    const [label, type, bytes] of [
      ["application/json", "application/json", JSON.stringify(Object.fromEntries(fields))],
      ["text/plain", "text/plain", formText(fields)],
      ["multipart without boundary", "multipart/form-data", formText(fields)],
      ["form with latin-1 charset", `${contentType}; charset=iso-8859-1`, formText(fields)],
      ["garbage content type", "???/;;", formText(fields)]
    ] as const
  ) {
    add("content-type", `content type ${label}`, { raw: { contentType: type, bytes } })
  }
  add("content-type", "no content type", { raw: { contentType: null, bytes: formText(fields) } })
}

const asObject = (value: unknown): Record<string, unknown> => (isObject(value) ? { ...value } : {})

/** A deterministic number in [0, 1) from a text. */
const unit = (text: string) => createHash("sha256").update(text).digest().readUInt32BE(0) / 2 ** 32

/**
 * A bounded, deterministic selection: the baseline plus `count` cases spread over the categories (round robin over
 * categories, each category's cases in an order fixed by `seed` and the operation).
 */
export const selectCases = (cases: ReadonlyArray<FuzzCase>, count: number, seed: string, key: string) => {
  const byCategory = new Map<Category, Array<FuzzCase>>()
  for (const c of cases.slice(1)) byCategory.set(c.category, [...(byCategory.get(c.category) ?? []), c])
  const queues = [...byCategory.entries()]
    .sort(([a], [b]) => unit(`${seed}:${key}:${a}`) - unit(`${seed}:${key}:${b}`))
    .map(([, list]) => [...list].sort((a, b) => unit(`${seed}:${key}:${a.name}`) - unit(`${seed}:${key}:${b.name}`)))
  const chosen: Array<FuzzCase> = [cases[0]!]
  while (chosen.length < count + 1 && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const next = queue.shift()
      if (next !== undefined && chosen.length < count + 1) chosen.push(next)
    }
  }
  return chosen
}
