import { Effect, Option, Schema } from "effect"

/**
 * Column schemas for rows as the pg driver hands them over, and the decoders repositories read through. A row that
 * does not match its schema is a defect at the repo boundary (a bug or a migration gone wrong), never a value that
 * travels on half-typed.
 */

/** An integer column: `integer` arrives as a number, `bigint` (ids, counts) as a decimal string. */
export const DbInt = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))

/** A `numeric` column (credits, hours): a decimal string from the driver, a number once decoded. */
export const DbNumeric = Schema.Union(Schema.Number, Schema.NumberFromString)

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
