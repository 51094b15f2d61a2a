import type { JsonType } from "./OpenApiModel.js"
import { RawJson, type ValueContext } from "./Values.js"

/** The values the fuzz puts in a property, a path or query parameter, or a header. */

export const HUGE = 100_000

export interface FuzzValue {
  readonly label: string
  readonly value: unknown
  readonly mustRefuse?: boolean
}

export const nested = (depth: number, leaf = "1") =>
  new RawJson(`${"{\"a\":".repeat(depth)}${leaf}${"}".repeat(depth)}`)
export const nestedArray = (depth: number) => new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`)

const SAMPLE_OF_TYPE: Record<Exclude<JsonType, "integer">, unknown> = {
  string: "sweep",
  number: 7,
  boolean: true,
  array: [],
  object: {},
  null: null
}

/** The values to try in a place that takes `schema`: other types, then what strains each accepted type. */
export const valueFuzz = (ctx: ValueContext, schema: unknown, name = ""): Array<FuzzValue> => {
  const types = ctx.model.types(schema)
  const out: Array<FuzzValue> = []
  for (const [type, sample] of Object.entries(SAMPLE_OF_TYPE)) {
    if (!types.has(type as JsonType) && types.size > 0) out.push({ label: `wrong type ${type}`, value: sample })
  }
  const members = ctx.model.members(schema)
  const stringSchema = members.find((m) => m["type"] === "string" || Array.isArray(m["enum"]))
  if (types.has("string") || types.size === 0) {
    out.push(
      { label: "NUL", value: "a\u0000b", mustRefuse: true },
      { label: "C0 controls", value: "a\u0001\u0008\u000b\u001f", mustRefuse: true },
      { label: "ESC sequence", value: "\u001b[31mred", mustRefuse: true },
      { label: "lone high surrogate", value: "a\ud800b", mustRefuse: true },
      { label: "lone low surrogate", value: "\udfffz", mustRefuse: true },
      { label: "100k string", value: "x".repeat(HUGE) },
      { label: "empty string", value: "" },
      { label: "whitespace only", value: "   \t " },
      { label: "SQL and format text", value: "'; DROP TABLE users; -- %s %n ${x} {{x}} \\" },
      { label: "RTL override and emoji", value: "\u202eevil 😀 \ufeff" }
    )
    const max = stringSchema?.["maxLength"]
    if (typeof max === "number" && max < HUGE) out.push({ label: "maxLength + 1", value: "y".repeat(max + 1) })
    if (stringSchema !== undefined && Array.isArray(stringSchema["enum"])) {
      out.push({ label: "not in enum", value: "not-an-enum-value" })
    }
    if (stringSchema?.["format"] === "date-time" || /(_at|_time|date)$/.test(name)) {
      out.push(
        { label: "impossible date-time", value: "2024-02-30T25:61:00Z" },
        { label: "year 0 date-time", value: "0000-01-01T00:00:00Z" },
        { label: "year 1 date-time", value: "0001-01-01T00:00:00Z" },
        { label: "year 9999 date-time", value: "9999-12-31T23:59:59Z" },
        { label: "beyond PostgreSQL's range", value: "294277-01-01T00:00:00Z" },
        { label: "JavaScript's last date", value: "+275760-09-13T00:00:00.000Z" },
        { label: "negative year", value: "-000001-01-01T00:00:00Z" },
        { label: "offset +14:00", value: "2030-01-01T10:00:00+14:00" },
        { label: "date only", value: "2030-01-01" },
        { label: "year 1 date", value: "0001-01-01" },
        { label: "year 9999 date", value: "9999-12-31" },
        { label: "February 30", value: "2024-02-30" }
      )
    }
  }
  if (types.has("number") || types.has("integer")) {
    out.push(
      { label: "negative", value: -1 },
      { label: "zero", value: 0 },
      { label: "fractional", value: 1.5 },
      { label: "three decimals", value: 0.001 },
      { label: "2^53+1", value: new RawJson("9007199254740993") },
      { label: "int4 overflow", value: 2147483648 },
      { label: "int8 overflow", value: new RawJson("9223372036854775808") },
      { label: "1e308", value: 1e308 },
      { label: "-1e308", value: -1e308 },
      { label: "1e999 (Infinity)", value: new RawJson("1e999") },
      { label: "negative zero", value: new RawJson("-0") },
      { label: "tiny", value: 1e-300 }
    )
  }
  if (types.has("array")) {
    const item = members.find((m) => m["type"] === "array")?.["items"]
    out.push(
      { label: "array of 10k items", value: Array.from({ length: 10_000 }, () => 1) },
      { label: "array of nulls", value: [null, null] },
      { label: "array of objects", value: [{}, { a: [] }] }
    )
    if (item !== undefined && ctx.model.types(item).has("string")) {
      out.push({ label: "array item NUL", value: ["a\u0000"], mustRefuse: true })
    }
  }
  if (types.has("object")) {
    out.push(
      { label: "100-deep object", value: nested(100) },
      { label: "unknown property", value: { sweep_unknown: 1 } },
      { label: "__proto__ key", value: new RawJson("{\"__proto__\":{\"polluted\":true}}") }
    )
  }
  if (types.has("boolean")) out.push({ label: "string boolean", value: "true" }, { label: "number boolean", value: 1 })
  return out
}

export const PATH_VALUES: ReadonlyArray<readonly [string, string]> = [
  ["zero", "0"],
  ["negative", "-1"],
  ["letters", "abc"],
  ["fraction", "1.5"],
  ["exponent", "1e3"],
  ["hex", "0x10"],
  ["plus sign", "%2B1"],
  ["20 digits", "99999999999999999999"],
  ["int4 overflow", "2147483648"],
  ["int8 overflow", "9223372036854775808"],
  ["%00", "%00"],
  ["%ff", "%ff"],
  ["encoded lone surrogate", "%ED%A0%80"],
  ["malformed escape", "%zz"],
  ["dot dot", "%2e%2e"],
  ["encoded slash", "1%2F2"],
  ["space", "%20"],
  ["5000 characters", "7".repeat(5000)],
  ["9000 characters", "8".repeat(9000)]
]

export const QUERY_VALUES: ReadonlyArray<readonly [string, string, boolean]> = [
  ["%00", "%00", true],
  ["%ff", "%ff", true],
  ["encoded lone surrogate", "%ED%A0%80", true],
  ["C0 control", "a%01b", true],
  ["malformed escape", "%", false],
  ["negative", "-1", false],
  ["fraction", "1.5", false],
  ["letters", "abc", false],
  ["empty", "", false],
  ["20 digits", "99999999999999999999", false],
  ["int4 overflow", "2147483648", false],
  ["5000 characters", "q".repeat(5000), false],
  ["100k characters", "q".repeat(HUGE), false]
]

/** Cursors are base64url JSON: well-formed ones whose values strain what the server does with them. */
export const CURSOR_PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ["int4 overflow", "2147483648"],
  ["int8 overflow", "9223372036854775808"],
  ["1e20", "1e20"],
  ["2^53+1", "9007199254740993"],
  ["negative", "-1"],
  ["zero", "0"],
  ["fraction", "1.5"],
  ["string", "\"x\""],
  ["NUL string", "\"\\u0000\""],
  ["empty array", "[]"],
  ["object", "{\"id\":1}"],
  ["far-future pair", "[\"294277-01-01T00:00:00Z\",1]"],
  ["year-0 pair", "[\"0000-01-01T00:00:00Z\",1]"],
  ["pair with overflow id", "[\"2024-01-01T00:00:00.000Z\",9223372036854775808]"],
  ["huge number pair", "[1e308,1e308]"],
  ["100-deep array", `${"[".repeat(100)}${"]".repeat(100)}`]
]

export const EDGE_HEADERS: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ["Authorization without token", { authorization: "Bearer" }],
  ["Authorization garbage token", { authorization: `Bearer ${"z".repeat(300)}` }],
  ["Authorization basic", { authorization: "Basic c3dlZXA6c3dlZXA=" }],
  ["Authorization latin-1 bytes", { authorization: "Bearer \u00ff\u00fe" }],
  ["X-Tenant-ID letters", { "x-tenant-id": "abc" }],
  ["X-Tenant-ID 20 digits", { "x-tenant-id": "99999999999999999999" }],
  ["X-Tenant-ID negative", { "x-tenant-id": "-1" }],
  ["X-Tenant-ID fraction", { "x-tenant-id": "1.5" }],
  ["X-Request-Id with spaces", { "x-request-id": "not a valid id" }],
  ["X-Request-Id 500 characters", { "x-request-id": "r".repeat(500) }],
  ["session cookie garbage", { cookie: "tb_session=%00garbage; tb_csrf=x" }],
  ["Accept XML", { accept: "application/xml" }]
]

/** Every fuzz case of a plan, the baseline first. */
