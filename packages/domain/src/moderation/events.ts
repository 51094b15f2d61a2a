import { Schema } from "effect"

/** A member flagged a report as a safeguarding concern (decisions D14): admins and coordinators must hear of it. */
export class SafeguardingFlagRaised extends Schema.TaggedClass<SafeguardingFlagRaised>()("SafeguardingFlagRaised", {
  report_id: Schema.Number,
  reporter_id: Schema.Number,
  target_type: Schema.String,
  target_id: Schema.Number,
  reason: Schema.String
}) {}
