import { Schema } from "effect"

/**
 * Marker message for path parameters that do not decode. The edge answers such requests 404 `NOT_FOUND`
 * (decisions D1: ids that are not positive integers are not found, not invalid).
 */
export const PATH_PARAM_NOT_FOUND = "path parameter does not name a record"

/** A record id in a path: a positive integer written as a string. */
export const PathId = <A>(id: Schema.Schema<A, number>) =>
  Schema.NumberFromString.pipe(Schema.compose(id)).annotations({
    message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true })
  })

/** Record ids are positive integers, unique per table across tenants (decisions D2). */
export const RecordId = Schema.Int.pipe(Schema.positive()).annotations({
  // Documented inline as what it is, rather than as a reference to `Int` with an exclusive minimum of 0.
  jsonSchema: { type: "integer", minimum: 1 }
})
