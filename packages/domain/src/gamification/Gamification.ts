import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"

export const BadgeId = RecordId.pipe(Schema.brand("BadgeId"))
export type BadgeId = typeof BadgeId.Type

export const CampaignId = RecordId.pipe(Schema.brand("CampaignId"))
export type CampaignId = typeof CampaignId.Type

/**
 * What members do that earns experience points and counts towards a badge's criteria (decisions D17
 * "Gamification"): each is recorded from a domain event of its owning feature.
 */
export const CriteriaEvent = Schema.Literal(
  "transfer_sent",
  "transfer_received",
  "hours_volunteered",
  "event_attended",
  "review_given",
  "listing_posted"
).annotations({
  description: "transfer_sent and transfer_received (member-to-member transfers), hours_volunteered (approved " +
    "volunteering hours, counted in hours), event_attended (check-ins), review_given, listing_posted"
})
export type CriteriaEvent = typeof CriteriaEvent.Type
export const CRITERIA_EVENTS: ReadonlyArray<CriteriaEvent> = CriteriaEvent.literals

/** How a badge was given: earned by its criteria, awarded by hand, or awarded to many at once. */
export const AwardSource = Schema.Literal("criteria", "manual", "bulk")
export type AwardSource = typeof AwardSource.Type

export const BADGE_THRESHOLD_MAX = 1_000_000

/** A badge earned by reaching `threshold` of one event (a count; hours for `hours_volunteered`). */
export const BadgeCriteria = Schema.Struct({
  event: CriteriaEvent,
  threshold: Schema.Int.pipe(Schema.between(1, BADGE_THRESHOLD_MAX)).annotations({
    description: "How many times (hours for hours_volunteered) a member must have done it"
  })
})
export type BadgeCriteria = typeof BadgeCriteria.Type

/** A badge of the community (decisions D17): `criteria` null means it is awarded by hand only. */
export const Badge = Schema.Struct({
  id: BadgeId,
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  icon: Schema.NullOr(Schema.String),
  criteria: Schema.NullOr(BadgeCriteria),
  awarded_count: Schema.Int.annotations({ description: "Members who hold it" }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
})
export type Badge = typeof Badge.Type

export const BadgeKey = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,49}$/, {
    message: () => "must be 1 to 50 lower-case letters, digits, _ or -, starting with a letter or digit"
  })
).annotations({ description: "Unique in the community: lower-case letters, digits, _ and -" })

/** `POST /api/v2/admin/gamification/badges`. */
export const CreateBadge = Schema.Struct({
  key: BadgeKey,
  name: TrimmedText(1, 100),
  description: Schema.optionalWith(TrimmedText(0, 1000), { exact: true }),
  icon: Schema.optionalWith(Schema.NullOr(TrimmedText(0, 200)), { exact: true }).annotations({
    description: "An emoji or an icon name; blank is the same as none"
  }),
  criteria: Schema.optionalWith(Schema.NullOr(BadgeCriteria), { exact: true }).annotations({
    description: "Null or absent: awarded by hand only"
  })
})
export type CreateBadge = typeof CreateBadge.Type

export const BadgeDeleted = Schema.Struct({ id: BadgeId, deleted: Schema.Literal(true) })
export type BadgeDeleted = typeof BadgeDeleted.Type

/** Latest instant a campaign may name (PostgreSQL keeps years up to 294276; we stop well before). */
export const LATEST_CAMPAIGN_TIME = "9999-12-31T23:59:59Z"

export const CampaignTime = Schema.DateTimeUtc.pipe(
  Schema.filter((t) => t.epochMillis >= 0 && t.epochMillis <= Date.parse(LATEST_CAMPAIGN_TIME), {
    message: () => `must be between 1970-01-01 and ${LATEST_CAMPAIGN_TIME}`,
    jsonSchema: { format: "date-time" }
  })
)

export const XpMultiplier = Schema.Number.pipe(Schema.finite(), Schema.between(1, 10)).annotations({
  description: "Experience points of the covered events are multiplied by this, 1 to 10"
})

const AppliesTo = Schema.Array(CriteriaEvent).pipe(Schema.minItems(1), Schema.maxItems(CRITERIA_EVENTS.length))
  .annotations({ description: "The events whose points the campaign multiplies" })

/** A time-boxed bonus (decisions D17): events inside [starts_at, ends_at) of `applies_to` earn × `xp_multiplier`. */
export const Campaign = Schema.Struct({
  id: CampaignId,
  name: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateTimeUtc,
  ends_at: Schema.DateTimeUtc,
  xp_multiplier: Schema.Number,
  applies_to: Schema.Array(CriteriaEvent),
  is_active: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
})
export type Campaign = typeof Campaign.Type

const campaignFields = {
  name: TrimmedText(1, 200),
  description: TrimmedText(0, 2000),
  starts_at: CampaignTime,
  ends_at: CampaignTime.annotations({ description: "Must be after starts_at" }),
  xp_multiplier: XpMultiplier,
  applies_to: AppliesTo,
  is_active: Schema.Boolean
}

/** `POST /api/v2/admin/gamification/campaigns`: `description` defaults to "", `is_active` to true. */
export const CreateCampaign = Schema.Struct({
  ...campaignFields,
  description: Schema.optionalWith(campaignFields.description, { exact: true }),
  is_active: Schema.optionalWith(campaignFields.is_active, { exact: true })
})
export type CreateCampaign = typeof CreateCampaign.Type

/** `PUT /api/v2/admin/gamification/campaigns/{id}`: the fields sent change; ends_at must stay after starts_at. */
export const UpdateCampaign = Schema.partialWith(Schema.Struct(campaignFields), { exact: true })
export type UpdateCampaign = typeof UpdateCampaign.Type

export const CampaignDeleted = Schema.Struct({ id: CampaignId, deleted: Schema.Literal(true) })
export type CampaignDeleted = typeof CampaignDeleted.Type

/** A badge a member holds. */
export const AwardedBadge = Schema.Struct({
  id: BadgeId,
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  icon: Schema.NullOr(Schema.String),
  awarded_at: Schema.DateTimeUtc,
  source: AwardSource,
  awarded_by: Schema.NullOr(Schema.Int).annotations({ description: "The admin who awarded it by hand" })
})
export type AwardedBadge = typeof AwardedBadge.Type

/** `POST /api/v2/admin/users/{id}/badges`. */
export const AwardBadge = Schema.Struct({ badge_id: BadgeId })
export type AwardBadge = typeof AwardBadge.Type

export const BadgeRevoked = Schema.Struct({ id: BadgeId, user_id: Schema.Int, deleted: Schema.Literal(true) })
export type BadgeRevoked = typeof BadgeRevoked.Type

export const BULK_AWARD_MAX = 1000

/** `POST /api/v2/admin/gamification/bulk-award`. */
export const BulkAward = Schema.Struct({
  badge_id: BadgeId,
  user_ids: Schema.Array(RecordId).pipe(Schema.minItems(1), Schema.maxItems(BULK_AWARD_MAX)).annotations({
    description: `Up to ${BULK_AWARD_MAX} members; ids not of this community and members who hold it are skipped`
  })
})
export type BulkAward = typeof BulkAward.Type

export const BulkAwarded = Schema.Struct({
  awarded: Schema.Int,
  skipped: Schema.Int.annotations({ description: "Distinct ids not awarded: unknown here, or holding it already" })
})
export type BulkAwarded = typeof BulkAwarded.Type

export const Rechecked = Schema.Struct({
  awarded: Schema.Int.annotations({ description: "Badges newly awarded by their criteria" })
})
export type Rechecked = typeof Rechecked.Type

/** `GET /api/v2/admin/gamification/stats`. */
export const GamificationStats = Schema.Struct({
  badges: Schema.Int.annotations({ description: "Badges of the community" }),
  criteria_badges: Schema.Int.annotations({ description: "Badges with criteria (the rest are awarded by hand)" }),
  awarded: Schema.Int.annotations({ description: "Badges held, all members together" }),
  members_with_badges: Schema.Int,
  members_with_xp: Schema.Int,
  xp_total: Schema.Int.annotations({ description: "Experience points earned, all members together" }),
  active_campaigns: Schema.Int.annotations({ description: "Campaigns switched on whose window contains now" }),
  top_badges: Schema.Array(Schema.Struct({ id: BadgeId, key: Schema.String, name: Schema.String, awarded: Schema.Int }))
    .annotations({ description: "Up to 5 badges held by most members" })
})
export type GamificationStats = typeof GamificationStats.Type

/** A member's points, level and badges (`GET /api/v2/users/me/gamification`). */
export const GamificationSummary = Schema.Struct({
  user_id: Schema.Int,
  xp: Schema.Int,
  level: Schema.Int.annotations({ description: "1 + ⌊√(xp / 100)⌋: 100 points reach level 2, 400 level 3" }),
  next_level_xp: Schema.Int.annotations({ description: "The points at which the next level starts" }),
  badges: Schema.Array(AwardedBadge)
})
export type GamificationSummary = typeof GamificationSummary.Type
