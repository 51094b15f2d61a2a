import { Schema } from "effect"
import { UserId } from "./User.js"

/** A member as other records show their author or owner: name and avatar, nothing private. */
export const UserSummary = Schema.Struct({
  id: UserId,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String)
})
export type UserSummary = typeof UserSummary.Type
