import { Effect, Option, ParseResult, Schema } from "effect"

/**
 * Column schemas for rows as the pg driver hands them over, and the decoders repositories read through. A row that
 * does not match its schema is a defect at the repo boundary (a bug or a migration gone wrong), never a value that
 * travels on half-typed.
 */

const INTEGER = /^-?\d+$/
const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * A column the driver hands over as a number or as a decimal string, decoded in one step: a declaration, not a
 * transformation from `Unknown` to `Number` (three parser steps per value, on every row of every list).
 */
const numberColumn = (
  name: string,
  pattern: RegExp,
  accept: (n: number) => boolean
): Schema.Schema<number, unknown> =>
  Schema.declare<number, unknown, readonly []>([], {
    decode: () => (input, _, ast) => {
      const n = typeof input === "number"
        ? input
        : typeof input === "string" && pattern.test(input)
        ? Number(input)
        : NaN
      return accept(n) ? ParseResult.succeed(n) : ParseResult.fail(new ParseResult.Type(ast, input, `not ${name}`))
    },
    encode: () => (input, _, ast) =>
      typeof input === "number" && accept(input)
        ? ParseResult.succeed(input)
        : ParseResult.fail(new ParseResult.Type(ast, input, `not ${name}`))
  }, { identifier: name })

/** An integer column: `integer` arrives as a number, `bigint` (ids, counts) as a decimal string. */
export const DbInt = numberColumn("an integer column", INTEGER, Number.isSafeInteger)

/**
 * An id column decoded straight to its branded id (`dbId(UserId)`): a positive safe integer, from an int4 number or an
 * int8 string. The check is the one the id's own schema makes (`RecordId`), done once in this step: ids stand on
 * every row of every list, and composing `DbInt` with the brand ran the integer checks a second time.
 */
const IdColumn = numberColumn("an id column", INTEGER, (n) => Number.isSafeInteger(n) && n > 0)
export const dbId = <B extends number>(_id: Schema.Schema<B, number>): Schema.Schema<B, unknown> =>
  IdColumn as unknown as Schema.Schema<B, unknown>

/** A `numeric` column (credits, hours): a decimal string from the driver, a number once decoded. */
export const DbNumeric = numberColumn("a numeric column", DECIMAL, Number.isFinite)

/** A `timestamptz` or `date` column, which the driver already turns into a `Date`. */
export const DbDate = Schema.DateFromSelf

/** Decodes every row read by `effect` with `schema`; a mismatch dies. */
export const decodeRows = <A, I, R>(schema: Schema.Schema<A, I, R>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return <E, R2>(effect: Effect.Effect<ReadonlyArray<unknown>, E, R2>): Effect.Effect<ReadonlyArray<A>, E, R | R2> =>
    Effect.flatMap(effect, (rows) => Effect.orDie(decode(rows)))
}

/** Decodes the first row read by `effect`, if there is one. */
export const decodeFirst = <A, I, R>(schema: Schema.Schema<A, I, R>) => {
  const decode = Schema.decodeUnknown(schema)
  return <E, R2>(effect: Effect.Effect<ReadonlyArray<unknown>, E, R2>): Effect.Effect<Option.Option<A>, E, R | R2> =>
    Effect.flatMap(
      effect,
      (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(Effect.orDie(decode(rows[0])))
    )
}

/** Decodes the one row `effect` must read (an INSERT ... RETURNING, an aggregate). */
export const decodeSingle = <A, I, R>(schema: Schema.Schema<A, I, R>) => {
  const decode = Schema.decodeUnknown(schema)
  return <E, R2>(effect: Effect.Effect<ReadonlyArray<unknown>, E, R2>): Effect.Effect<A, E, R | R2> =>
    Effect.flatMap(
      effect,
      (rows) =>
        rows.length === 0 ? Effect.dieMessage("expected one row, the query read none") : Effect.orDie(decode(rows[0]))
    )
}
