import type { OpenApi } from "@effect/platform"
import { isJson, type Json, operationsOf, ref } from "./OpenApiJson.js"

/**
 * No `$id` (duplicated per use), no titles that only name a check (`maxLength(200)`, `int`: the keywords say it),
 * integers inline (`{"type": "integer", "minimum": 1}` rather than a reference to `Int` with sibling bounds), and
 * `{}` (`Schema.Struct({})`, `Schema.Object`) as an object rather than object-or-array. The `info` is kept as it is.
 */
export const clean = (doc: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => ({
  ...JSON.parse(JSON.stringify(doc), cleanValue),
  info: doc.info
})

const INT_REF = ref("schemas", "Int")

const cleanValue = (key: string, value: unknown): unknown => {
  if (key === "$id") return undefined
  if (key === "title" && typeof value === "string" && /^[a-z][A-Za-z]*(\(.*\))?$/.test(value)) return undefined
  if (isJson(value) && value["$ref"] === INT_REF) {
    const { $ref: _, ...rest } = value
    return { type: "integer", ...rest }
  }
  if (isJson(value) && Array.isArray(value["anyOf"]) && isObjectOrArray(value["anyOf"])) {
    const { anyOf: _, ...rest } = value
    return { ...rest, type: "object" }
  }
  return value
}

const isObjectOrArray = (anyOf: ReadonlyArray<unknown>) =>
  anyOf.length === 2 && anyOf.every((s) => isJson(s) && Object.keys(s).length === 1) &&
  anyOf.some((s) => isJson(s) && s["type"] === "object") && anyOf.some((s) => isJson(s) && s["type"] === "array")

/** The `DateTimeUtc` component as a string with its format, instead of the framework's bare string. */
export const DATE_TIME_UTC: Json = {
  type: "string",
  format: "date-time",
  description: "An ISO 8601 date and time in UTC, such as 2025-06-01T18:30:00.000Z"
}

/** Tags by name, those whose every route is under `/api/v2/admin/` after the others. */
export const sortedTags = (doc: OpenApi.OpenAPISpec): Array<OpenApi.OpenAPISpecTag> => {
  const paths = new Map<string, Array<string>>()
  for (const { op, path } of operationsOf(doc)) {
    for (const tag of op.tags) paths.set(tag, [...(paths.get(tag) ?? []), path])
  }
  const isAdmin = (tag: OpenApi.OpenAPISpecTag) =>
    (paths.get(tag.name) ?? []).every((path) => path.startsWith("/api/v2/admin/"))
  const byName = (a: OpenApi.OpenAPISpecTag, b: OpenApi.OpenAPISpecTag) => a.name.localeCompare(b.name)
  return [...doc.tags.filter((t) => !isAdmin(t)).sort(byName), ...doc.tags.filter(isAdmin).sort(byName)]
}

/** Components nothing refers to any more (the framework's decode error, per-error copies) are dropped. */
export const dropUnused = (doc: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const components = doc.components as unknown as Record<string, Record<string, unknown>>
  const used = usedRefs(doc, components)
  for (const kind of ["schemas", "responses", "examples", "headers"]) {
    const entries = components[kind] ?? {}
    for (const name of Object.keys(entries)) {
      if (!used.has(ref(kind, name))) delete entries[name]
    }
  }
  return doc
}

/** Every `$ref` reachable from the document outside its components. */
const usedRefs = (
  doc: OpenApi.OpenAPISpec,
  components: Record<string, Record<string, unknown>>
): ReadonlySet<string> => {
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
  return used
}
