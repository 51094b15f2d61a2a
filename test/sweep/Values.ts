import { randomUUID } from "node:crypto"
import { isObject, type JsonSchema, type OpenApiModel } from "./OpenApiModel.js"

/**
 * Valid-looking values from schemas: the baseline of every request, from which each fuzz case changes one thing.
 * Objects carry their required properties only (the fuzz adds the optional ones one at a time); ids are taken
 * from the world by what their name or path segment says they are.
 */

/** What a word of a path or a property name says a record is, in the world's vocabulary. */
const KIND_WORDS: Record<string, string> = {
  listing: "listing",
  listings: "listing",
  event: "event",
  events: "event",
  organisation: "organisation",
  organisations: "organisation",
  organization: "organisation",
  organizations: "organisation",
  opportunity: "opportunity",
  opportunities: "opportunity",
  application: "application",
  applications: "application",
  hour: "hours",
  hours: "hours",
  user: "user",
  users: "user",
  recipient: "user",
  owner: "user",
  attendee: "user",
  attendees: "user",
  member: "user",
  members: "user",
  volunteer: "user",
  volunteers: "user",
  reviewer: "user",
  category: "category",
  categories: "category",
  attribute: "attribute",
  attributes: "attribute",
  poll: "poll",
  polls: "poll",
  option: "option",
  options: "option",
  transaction: "transaction",
  transactions: "transaction",
  tenant: "tenant",
  tenants: "tenant",
  series: "series",
  review: "review",
  reviews: "review",
  badge: "badge",
  badges: "badge",
  campaign: "campaign",
  campaigns: "campaign",
  // A background job's run (`/system/cron-jobs/logs/{id}`).
  log: "run",
  logs: "run",
  reminder: "reminder",
  reminders: "reminder",
  message: "message",
  messages: "message",
  connection: "connection",
  connections: "connection",
  group: "group",
  groups: "group",
  // A group type (`/admin/groups/types/{id}`, `type_id`); no other route has an id after `type(s)`.
  type: "group-type",
  types: "group-type",
  post: "post",
  posts: "post",
  comment: "comment",
  comments: "comment",
  report: "report",
  reports: "report",
  faq: "faq",
  faqs: "faq",
  // A blog post (`/admin/blog/{id}`); the world gives its published post its id as slug (`/blog/{slug}`).
  blog: "blog",
  partner: "partner",
  partners: "partner",
  "api-key": "api-key",
  "api-keys": "api-key",
  delivery: "delivery",
  deliveries: "delivery",
  // A match of the approvals queue (`/admin/matching/approvals/{id}`); told apart by the segment before it.
  "matching/approvals": "match",
  // A group waiting for review (`/admin/groups/approvals/{groupId}/approve`).
  "groups/approvals": "pending group"
}

/** The kind of record a path segment or an id property names (`recipient_id` → user), if the sweep knows it. */
export const kindOf = (word: string): string | undefined => {
  const base = word.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().replace(/[_-]?ids?$/, "")
  return KIND_WORDS[base] ?? KIND_WORDS[base.split(/[_-]/).pop() ?? ""]
}

export const isIdName = (name: string) => /(^|_)ids?$|[a-z]Ids?$/.test(name)

/** Ids of records by kind, as one phase of the sweep sees them. */
export interface IdSource {
  readonly ids: (kind: string) => ReadonlyArray<number>
}

/** A JSON text to put into a body as it is (numbers JSON.stringify cannot write, deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson pieces. */
export const toJsonText = (value: unknown): string => {
  const raws: Array<string> = []
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text)
      return `__sweep_raw_${raws.length - 1}__`
    }
    return v
  }) ?? ""
  return raws.length === 0 ? text : text.replace(/"__sweep_raw_(\d+)__"/g, (_m, i: string) => raws[Number(i)]!)
}

export interface ValueContext {
  readonly model: OpenApiModel
  readonly ids: IdSource
  /** Lower-case letters and digits, unique per operation: e-mails, slugs and names do not collide. */
  readonly unique: string
  /** Values by property name that win over generated ones (a refresh token of the phase, ...). */
  readonly overrides?: Readonly<Record<string, unknown>>
}

const DAY = 86_400_000

const futureStart = () => {
  const d = new Date(Date.now() + 3 * DAY)
  d.setUTCHours(10, 0, 0, 0)
  return d
}

const today = () => new Date().toISOString().slice(0, 10)

let counter = 0

/** A string for `name` that satisfies the schema's length and pattern where the sweep can tell. */
const stringFor = (ctx: ValueContext, schema: JsonSchema, name: string): string => {
  const n = ++counter
  const lower = name.toLowerCase()
  const format = typeof schema["format"] === "string" ? schema["format"] : ""
  const candidates: Array<string> = []
  if (format === "date-time" || /(_at|_time|^start|^end)$/.test(lower)) {
    const start = futureStart()
    candidates.push(new Date(start.getTime() + (/end/.test(lower) ? 2 * 3_600_000 : 0)).toISOString())
  }
  if (format === "date" || /(^|_)date$/.test(lower)) {
    candidates.push(/end|until|last/.test(lower) ? new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10) : today())
  }
  if (format === "email" || /email/.test(lower)) candidates.push(`sweep-${ctx.unique}-${n}@example.org`)
  if (format === "uri" || format === "url" || /(url|link|website)$/.test(lower)) {
    candidates.push("https://example.org/sweep")
  }
  if (format === "uuid") candidates.push(randomUUID())
  if (/password/.test(lower)) candidates.push("Sweep-password-1234")
  if (/slug/.test(lower)) candidates.push(`sweep-${ctx.unique}-${n}`)
  if (/domain|host/.test(lower)) candidates.push(`sweep-${ctx.unique}-${n}.example.org`)
  if (/colou?r/.test(lower)) candidates.push("blue")
  if (/timezone|time_zone/.test(lower)) candidates.push("UTC")
  if (/language|locale/.test(lower)) candidates.push("en")
  if (/rrule/.test(lower)) candidates.push("FREQ=WEEKLY;COUNT=3")
  if (/description|bio|message|comment|note|reason/.test(lower)) {
    candidates.push(`Sweep ${name} ${ctx.unique} ${n}, long enough to be a description.`)
  }
  candidates.push(`Sweep ${name || "text"} ${ctx.unique} ${n}`, `sweep-${ctx.unique}-${n}`, "sweep", "a", "1")
  const min = typeof schema["minLength"] === "number" ? schema["minLength"] : 0
  const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : Number.MAX_SAFE_INTEGER
  let pattern: RegExp | undefined
  try {
    pattern = typeof schema["pattern"] === "string" ? new RegExp(schema["pattern"], "u") : undefined
  } catch {
    pattern = undefined
  }
  const fit = (s: string) => {
    const padded = s.length < min ? s + "x".repeat(min - s.length) : s
    return padded.length > max ? padded.slice(0, max) : padded
  }
  for (const candidate of candidates) {
    const value = fit(candidate)
    if (pattern === undefined || pattern.test(value)) return value
  }
  return fit(candidates[0]!)
}

const numberFor = (schema: JsonSchema, integer: boolean): number => {
  const min = typeof schema["minimum"] === "number"
    ? schema["minimum"]
    : typeof schema["exclusiveMinimum"] === "number"
    ? schema["exclusiveMinimum"] + (integer ? 1 : 0.01)
    : undefined
  const max = typeof schema["maximum"] === "number"
    ? schema["maximum"]
    : typeof schema["exclusiveMaximum"] === "number"
    ? schema["exclusiveMaximum"] - (integer ? 1 : 0.01)
    : undefined
  let value = 1
  if (min !== undefined && value < min) value = min
  if (max !== undefined && value > max) value = max
  return integer ? Math.ceil(value) : value
}

/** An id of the kind `name` (or the path segment) names, else 1. */
export const idFor = (ctx: ValueContext, name: string, siblings?: Record<string, unknown>): number => {
  let kind = kindOf(name)
  if (kind === undefined && siblings !== undefined) {
    // `target_id` beside `target_type: "organization"`: the type says what the id is.
    const prefix = name.replace(/_?ids?$/i, "")
    const said = siblings[`${prefix}_type`] ?? siblings["type"]
    if (typeof said === "string") kind = kindOf(said)
  }
  return (kind === undefined ? undefined : ctx.ids.ids(kind)[0]) ?? 1
}

/** A valid-looking value of `schema`; `name` is the property (or parameter) it is for. */
export const baselineValue = (
  ctx: ValueContext,
  schema: unknown,
  name = "",
  siblings?: Record<string, unknown>,
  depth = 0
): unknown => {
  if (ctx.overrides !== undefined && name in ctx.overrides) return ctx.overrides[name]
  const members = ctx.model.members(schema)
  const chosen = members.find((m) => m["type"] !== "null" && !(Array.isArray(m["enum"]) && m["enum"][0] === null)) ??
    members[0] ?? {}
  if ("const" in chosen) return chosen["const"]
  if (Array.isArray(chosen["enum"]) && chosen["enum"].length > 0) {
    return chosen["enum"].find((v) => v !== null) ?? chosen["enum"][0]
  }
  if ("default" in chosen && chosen["default"] !== undefined && depth > 0) return chosen["default"]
  const type = Array.isArray(chosen["type"]) ? chosen["type"].find((t) => t !== "null") : chosen["type"]
  switch (type) {
    case "string":
      return stringFor(ctx, chosen, name)
    case "integer":
      return isIdName(name) || name === "id" ? idFor(ctx, name, siblings) : numberFor(chosen, true)
    case "number":
      return numberFor(chosen, false)
    case "boolean":
      return true
    case "null":
      return null
    case "array": {
      const min = typeof chosen["minItems"] === "number" ? chosen["minItems"] : 0
      const max = typeof chosen["maxItems"] === "number" ? chosen["maxItems"] : 10
      const count = Math.min(Math.max(min, 1), max)
      const item = singular(name)
      return Array.from({ length: count }, () => baselineValue(ctx, chosen["items"], item, undefined, depth + 1))
    }
    default: {
      if (!isObject(chosen["properties"]) && type !== "object") return `sweep-${ctx.unique}`
      return baselineObject(ctx, chosen, depth)
    }
  }
}

/** `poll_ids` → `poll_id`, `options` → `option`: the name of one item, for ids and strings of an array. */
const singular = (name: string) =>
  name.endsWith("_ids") ? name.slice(0, -1) : name.endsWith("s") ? name.slice(0, -1) : name

/** The required properties of an object schema, each with its baseline value (ids after their `_type`). */
export const baselineObject = (ctx: ValueContext, schema: JsonSchema, depth = 0): Record<string, unknown> => {
  const resolved = ctx.model.resolve(schema)
  const properties = isObject(resolved["properties"]) ? resolved["properties"] : {}
  const required = Array.isArray(resolved["required"]) ? resolved["required"].map(String) : []
  const out: Record<string, unknown> = {}
  const ordered = [...required].sort((a, b) => Number(isIdName(a)) - Number(isIdName(b)))
  for (const key of ordered) {
    if (depth > 8) break
    out[key] = baselineValue(ctx, properties[key], key, out, depth + 1)
  }
  return out
}
