import { HttpApiSchema } from "@effect/platform"
import { Array as Arr, Schema } from "effect"

/** One entry of the error envelope (decisions D1). */
export const ErrorEntry = Schema.Struct({
  code: Schema.propertySignature(Schema.String).annotations({
    description: "What went wrong, as a stable code: UPPER_SNAKE, except the lowercase tenant codes"
  }),
  message: Schema.propertySignature(Schema.String).annotations({ description: "Text for people; it may change" }),
  field: Schema.optional(Schema.String).annotations({
    description: "Dotted path of the field concerned (`reminders.0.offset_minutes`); absent when the error is not " +
      "about one field"
  })
})
export type ErrorEntry = typeof ErrorEntry.Type

/** `{"errors": [...]}` — the body of every error response. */
export const ErrorBody = Schema.Struct({ errors: Schema.Array(ErrorEntry) })
export type ErrorBody = typeof ErrorBody.Type

const errorFields = { message: Schema.String, field: Schema.optional(Schema.String) }

/**
 * Base for domain errors that are named as facts and carry their HTTP status and envelope code.
 *
 *   export class EventCancelled extends ApiError<EventCancelled>()("EventCancelled", "EVENT_CANCELLED", 409) {}
 *
 * Contracts declare them with `.addError(httpError(EventCancelled))`, which encodes them as the D1 envelope.
 */
export const ApiError =
  <Self>() => <const Tag extends string, const Code extends string>(tag: Tag, code: Code, status: number) => {
    type Fields = { readonly _tag: Schema.tag<Tag> } & typeof errorFields
    // The cast resolves TaggedError's `Self` check, which TypeScript cannot evaluate for a generic `Self`.
    const TaggedError = Schema.TaggedError<Self>()(tag, errorFields) as unknown as Schema.TaggedErrorClass<
      Self,
      Tag,
      Fields
    >
    class Base extends TaggedError {
      static readonly code: Code = code
      static readonly status: number = status
    }
    return Base
  }

type ErrorShape = { readonly _tag: string; readonly message: string; readonly field?: string | undefined }

interface ApiErrorClass<A extends ErrorShape>
  extends Schema.Schema<A, Schema.Struct.Encoded<typeof errorFields> & { readonly _tag: A["_tag"] }, never>
{
  readonly code: string
  readonly status: number
}

const cache = new WeakMap<object, Schema.Schema.Any>()

/**
 * The wire schema of an ApiError: the class on the type side, `{"errors":[{code,message,field?}]}` on the encoded
 * side, with its status annotated. Memoised so that every endpoint shares one schema per error.
 */
export const httpError = <A extends ErrorShape>(
  cls: ApiErrorClass<A>
): Schema.Schema<A, { readonly errors: ReadonlyArray<ErrorEntry> }> => {
  const cached = cache.get(cls)
  if (cached) return cached as never
  const tag = tagOf(cls)
  const schema = Schema.transform(
    Schema.Struct({
      errors: Schema.Tuple(Schema.Struct({
        code: Schema.Literal(cls.code),
        message: Schema.String,
        field: Schema.optional(Schema.String)
      }))
    }),
    Schema.typeSchema(cls),
    {
      strict: false,
      decode: ({ errors: [e] }) =>
        new (cls as unknown as new(a: object) => A)(withField({ message: e.message }, e.field)),
      encode: (error) => ({ errors: [withField({ code: cls.code, message: error.message }, error.field)] as const })
    }
  ).annotations(HttpApiSchema.annotations({ status: cls.status, description: `${cls.code} (${tag})` }))
  cache.set(cls, schema)
  return schema as never
}

const tagOf = (cls: Schema.Schema.Any): string => {
  const fields = (cls as unknown as { fields?: { _tag?: { ast?: { literals?: ReadonlyArray<string> } } } }).fields
  return fields?._tag?.ast?.literals?.[0] ?? "Error"
}

const withField = <A extends object>(value: A, field: string | undefined): A & { field?: string } =>
  field === undefined ? value : { ...value, field }

// ---------------------------------------------------------------------------------------------------------------
// Errors shared by every feature (decisions D1).

export class NotFound extends ApiError<NotFound>()("NotFound", "NOT_FOUND", 404) {
  static of(what: string): NotFound {
    return new NotFound({ message: `${what} not found` })
  }
}
export class Forbidden extends ApiError<Forbidden>()("Forbidden", "FORBIDDEN", 403) {}
export class AuthRequired extends ApiError<AuthRequired>()("AuthRequired", "AUTH_REQUIRED", 401) {}
export class AlreadyExists extends ApiError<AlreadyExists>()("AlreadyExists", "ALREADY_EXISTS", 409) {}
export class FeatureDisabled extends ApiError<FeatureDisabled>()("FeatureDisabled", "FEATURE_DISABLED", 403) {}
export class RateLimited extends ApiError<RateLimited>()("RateLimited", "RATE_LIMITED", 429) {}

/** One problem of a validation failure: which field (dotted path) and what is wrong with it. */
export const ValidationIssue = Schema.Struct({ field: Schema.optional(Schema.String), message: Schema.String })
export type ValidationIssue = typeof ValidationIssue.Type

/** 422 `VALIDATION_ERROR`, one envelope entry per bad field. Raised by schema decoding and by domain rules. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  issues: Schema.NonEmptyArray(ValidationIssue)
}) {
  static readonly code = "VALIDATION_ERROR"
  static readonly status = 422
  static field(field: string, message: string): ValidationFailed {
    return new ValidationFailed({ issues: [{ field, message }] })
  }
  override get message(): string {
    return this.issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join("; ")
  }
}

export const ValidationFailedResponse = Schema.transform(
  Schema.Struct({
    errors: Schema.NonEmptyArray(Schema.Struct({
      code: Schema.Literal(ValidationFailed.code),
      message: Schema.String,
      field: Schema.optional(Schema.String)
    }))
  }),
  Schema.typeSchema(ValidationFailed),
  {
    strict: false,
    decode: ({ errors }) =>
      new ValidationFailed({ issues: Arr.map(errors, (e) => withField({ message: e.message }, e.field)) }),
    encode: (error) => ({
      errors: error.issues.map((i) => withField({ code: ValidationFailed.code, message: i.message }, i.field))
    })
  }
).annotations(HttpApiSchema.annotations({ status: 422, description: "VALIDATION_ERROR" }))
