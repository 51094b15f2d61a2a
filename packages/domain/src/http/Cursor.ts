import { Either, ParseResult, Schema } from "effect"

/** Opaque cursors are base64url of a JSON value (for example the last-seen id, or `[timestamp, id]`). */
export const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")

export const decodeCursor = <A, I>(schema: Schema.Schema<A, I>, cursor: string): Either.Either<A, string> => {
  let json: unknown
  try {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) return Either.left("is not a valid cursor")
    json = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return Either.left("is not a valid cursor")
  }
  return Schema.decodeUnknownEither(schema)(json).pipe(Either.mapLeft(() => "is not a valid cursor"))
}

/**
 * A `?cursor=` URL parameter that decodes to `A`. A cursor that does not decode fails validation on field
 * `cursor`, which the edge turns into 422 `VALIDATION_ERROR` (decisions D1).
 */
export const CursorParam = <A, I>(value: Schema.Schema<A, I>) =>
  Schema.transformOrFail(Schema.String, Schema.typeSchema(value), {
    strict: true,
    decode: (s, _, ast) =>
      Either.match(decodeCursor(value, s), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, s, message)),
        onRight: ParseResult.succeed
      }),
    encode: (a) => ParseResult.succeed(encodeCursor(Schema.encodeSync(value)(a)))
  }).annotations({ description: "Opaque cursor from the previous page's meta.cursor" })

/** `?per_page=` with a default and a cap (decisions D1; the directory caps at 50). */
export const PerPageParam = (max: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, max)).annotations({
    description: `Page size, 1 to ${max}`
  })

/**
 * `?per_page=` that clamps instead of refusing: out-of-range numbers become 1 or `max` (the organisation
 * directory: "default 20, clamped to 1..50"). Text that is not an integer is still a 422.
 */
export const ClampedPerPageParam = (max: number) =>
  Schema.transform(Schema.NumberFromString.pipe(Schema.int()), Schema.Int.pipe(Schema.between(1, max)), {
    strict: true,
    decode: (n) => Math.min(max, Math.max(1, n)),
    encode: (n) => n
  }).annotations({ description: `Page size; values outside 1 to ${max} are clamped` })

/** `?page=` of offset lists (decisions D1), from 1. */
export const PageParam = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000)).annotations({
  description: "Page number, from 1 (default 1)"
})

/** `?page=&per_page=` of admin offset lists: pages of at most 100 rows (default 20). */
export const OffsetPageParams = Schema.Struct({
  page: Schema.optional(PageParam),
  per_page: Schema.optional(PerPageParam(100))
})
