import { Schema } from "effect"

/** A computation made matches that wait for an admin's approval (approval required). */
export class MatchesAwaitingApproval extends Schema.TaggedClass<MatchesAwaitingApproval>()("MatchesAwaitingApproval", {
  user_id: Schema.Number,
  count: Schema.Number
}) {}

/** An admin approved a pending match: the member now sees it. */
export class MatchApproved extends Schema.TaggedClass<MatchApproved>()("MatchApproved", {
  match_id: Schema.Number,
  user_id: Schema.Number,
  target_type: Schema.Literal("listing", "opportunity"),
  target_id: Schema.Number,
  title: Schema.String,
  approved_by: Schema.Number
}) {}

/** An admin rejected a pending match: it is never suggested again. */
export class MatchRejected extends Schema.TaggedClass<MatchRejected>()("MatchRejected", {
  match_id: Schema.Number,
  user_id: Schema.Number,
  target_type: Schema.Literal("listing", "opportunity"),
  target_id: Schema.Number,
  rejected_by: Schema.Number
}) {}
