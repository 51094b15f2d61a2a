import {
  ATTRIBUTE_TEXT_MAX,
  type AttributeType,
  type AttributeValue,
  type AttributeValues,
  type AttributeValuesInput,
  type ValidationIssue
} from "@timebank/domain"

/** An attribute definition as validation needs it. */
export interface AttributeDefinition {
  readonly id: number
  readonly name: string
  readonly type: AttributeType
  readonly options: ReadonlyArray<string>
  readonly required: boolean
}

export interface CheckedValues {
  /** The values to store, keyed by attribute id, in id order. */
  readonly values: AttributeValues
  /** One entry per bad key (`attributes.<key>`); empty when every value fits. */
  readonly issues: ReadonlyArray<ValidationIssue>
}

const describe: Record<AttributeType, string> = {
  text: "must be text",
  number: "must be a number",
  boolean: "must be true or false",
  select: "must be one of the options"
}

/** The stored form of one value, or the reason it does not fit the definition. */
const coerce = (
  def: AttributeDefinition,
  value: AttributeValue
): { readonly ok: true; readonly value: AttributeValue | null } | { readonly ok: false; readonly message: string } => {
  switch (def.type) {
    case "text": {
      if (typeof value !== "string") return { ok: false, message: describe.text }
      const text = value.trim()
      if (text.length > ATTRIBUTE_TEXT_MAX) {
        return { ok: false, message: `must be at most ${ATTRIBUTE_TEXT_MAX} characters` }
      }
      return { ok: true, value: text === "" ? null : text }
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? { ok: true, value }
        : { ok: false, message: describe.number }
    case "boolean":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, message: describe.boolean }
    case "select":
      return typeof value === "string" && def.options.includes(value)
        ? { ok: true, value }
        : { ok: false, message: `must be one of: ${def.options.join(", ")}` }
  }
}

/**
 * Checks a listing's attribute values against the community's definitions. Keys are attribute ids written as
 * decimal strings. A key naming no attribute, a value of the wrong type, a select value outside its options, or a
 * required attribute without a value (absent, `null` or empty text) is an issue on `attributes.<key>`.
 */
export const checkAttributeValues = (
  definitions: ReadonlyArray<AttributeDefinition>,
  input: AttributeValuesInput
): CheckedValues => {
  const byKey = new Map(definitions.map((d) => [String(d.id), d]))
  const issues: Array<ValidationIssue> = []
  const kept = new Map<number, AttributeValue>()
  for (const [key, raw] of Object.entries(input)) {
    const def = byKey.get(key)
    if (def === undefined) {
      issues.push({ field: `attributes.${key}`, message: "is not an attribute of this community" })
      continue
    }
    if (raw === null) continue
    const outcome = coerce(def, raw)
    if (!outcome.ok) issues.push({ field: `attributes.${key}`, message: outcome.message })
    else if (outcome.value !== null) kept.set(def.id, outcome.value)
  }
  for (const def of definitions) {
    const key = String(def.id)
    if (def.required && !kept.has(def.id) && !issues.some((i) => i.field === `attributes.${key}`)) {
      issues.push({ field: `attributes.${key}`, message: `is required (${def.name})` })
    }
  }
  const values = Object.fromEntries([...kept].sort(([a], [b]) => a - b).map(([id, v]) => [String(id), v]))
  return { values, issues }
}

/** Problems of a definition's options for its type: a select needs distinct options, the other types none. */
export const optionIssues = (type: AttributeType, options: ReadonlyArray<string>): ReadonlyArray<ValidationIssue> => {
  if (type !== "select") {
    return options.length === 0 ? [] : [{ field: "options", message: `must be empty for a ${type} attribute` }]
  }
  if (options.length === 0) return [{ field: "options", message: "must list at least one option for a select" }]
  const seen = new Set<string>()
  const issues: Array<ValidationIssue> = []
  options.forEach((option, i) => {
    if (seen.has(option)) issues.push({ field: `options.${i}`, message: "repeats an earlier option" })
    seen.add(option)
  })
  return issues
}
