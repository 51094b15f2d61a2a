import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"
import { RecordId } from "../http/Ids.js"

/**
 * What the admin moderation lists (decisions D15, D17 "Moderation") share: their query filters and the 409 of
 * acting on a record in the wrong state.
 */

/** `?is_hidden=true|false` and the like: a filter that is on or off. */
export const BooleanParam = Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, {
  strict: true,
  decode: (text) => text === "true",
  encode: (flag) => (flag ? "true" : "false")
}).annotations({ description: "`true` or `false`" })

/** A record id in a query filter (`?author_id=`): a positive integer. */
export const FilterId = Schema.NumberFromString.pipe(Schema.compose(RecordId)).annotations({
  jsonSchema: { type: "integer", minimum: 1 }
})

/** Part of a text to look for (case-insensitive); blank means no filter. */
export const ModerationSearch = Schema.Trim.pipe(Schema.maxLength(200)).annotations({
  description: "Part of the text, case-insensitive (at most 200 characters)"
})

/** 409 `INVALID_STATE`: hiding what is hidden already, flagging what is flagged already. */
export class ModerationStateConflict
  extends ApiError<ModerationStateConflict>()("ModerationStateConflict", "INVALID_STATE", 409)
{}
