import { Schema } from "effect"
import { PathId, RecordId } from "../http/Ids.js"

export const AttributeId = RecordId.pipe(Schema.brand("AttributeId"))
export type AttributeId = typeof AttributeId.Type

export const AttributeType = Schema.Literal("text", "number", "boolean", "select")
export type AttributeType = typeof AttributeType.Type

export const AttributeName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))
export const AttributeOption = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))
export const AttributeOptions = Schema.Array(AttributeOption).pipe(Schema.maxItems(100))

/** Longest text value of a `text` attribute. */
export const ATTRIBUTE_TEXT_MAX = 1000

/** A listing attribute the community defines; listings carry values of it (see `AttributeValues`). */
export class ListingAttribute extends Schema.Class<ListingAttribute>("ListingAttribute")({
  id: AttributeId,
  name: Schema.String,
  type: AttributeType,
  options: Schema.Array(Schema.String).annotations({ description: "The allowed values of a select; [] otherwise" }),
  required: Schema.Boolean
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const CreateAttribute = Schema.Struct({
  name: AttributeName,
  type: AttributeType,
  options: exact(AttributeOptions).annotations({
    description: "Required and non-empty for `select`, absent or empty for the other types"
  }),
  required: exact(Schema.Boolean).annotations({ description: "Default false" })
})
export type CreateAttribute = typeof CreateAttribute.Type

export const UpdateAttribute = Schema.Struct({
  name: exact(AttributeName),
  type: exact(AttributeType),
  options: exact(AttributeOptions),
  required: exact(Schema.Boolean)
})
export type UpdateAttribute = typeof UpdateAttribute.Type

export const AttributeIdPath = Schema.Struct({ id: PathId(AttributeId) })

export const AttributeDeleted = Schema.Struct({ id: AttributeId, deleted: Schema.Literal(true) })
export type AttributeDeleted = typeof AttributeDeleted.Type

/** One attribute value: text and select values are strings, number values numbers, boolean values booleans. */
export const AttributeValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean)
export type AttributeValue = typeof AttributeValue.Type

/** A listing's attribute values, keyed by attribute id (a decimal string, since JSON keys are strings). */
export const AttributeValues = Schema.Record({ key: Schema.String, value: AttributeValue }).annotations({
  description: "Values keyed by attribute id, e.g. {\"12\": \"blue\", \"13\": 2}"
})
export type AttributeValues = typeof AttributeValues.Type

/** Values as a client sends them; `null` (or an empty text) means no value. */
export const AttributeValuesInput = Schema.Record({ key: Schema.String, value: Schema.NullOr(AttributeValue) })
  .annotations({
    description: "Values keyed by attribute id; validated against the community's attribute definitions"
  })
export type AttributeValuesInput = typeof AttributeValuesInput.Type
