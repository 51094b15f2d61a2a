import { Schema } from "effect"

/**
 * A member received a badge: earned by its criteria (`source` "criteria", `awarded_by` null) or given by an admin
 * (`manual`, `bulk`). The badge's key and name travel with it for the member's notification.
 */
export class BadgeAwarded extends Schema.TaggedClass<BadgeAwarded>()("BadgeAwarded", {
  badge_id: Schema.Number,
  badge_key: Schema.String,
  badge_name: Schema.String,
  user_id: Schema.Number,
  source: Schema.String,
  awarded_by: Schema.NullOr(Schema.Number)
}) {}
