import { Schema } from "effect"

export class PollCreated extends Schema.TaggedClass<PollCreated>()("PollCreated", {
  poll_id: Schema.Number,
  user_id: Schema.Number,
  question: Schema.String,
  options: Schema.Array(Schema.String)
}) {}
