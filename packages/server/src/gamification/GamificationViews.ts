import type { AwardedBadge, Badge, Campaign } from "@timebank/domain"
import { DateTime } from "effect"
import type { AwardRow } from "./AwardRepo.js"
import type { BadgeRow } from "./BadgeRepo.js"
import type { CampaignRow } from "./CampaignRepo.js"

const utc = (date: Date) => DateTime.unsafeFromDate(date)

export const badgeView = (row: BadgeRow): Badge => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  icon: row.icon,
  criteria: row.criteria_event === null || row.criteria_threshold === null
    ? null
    : { event: row.criteria_event, threshold: row.criteria_threshold },
  awarded_count: row.awarded_count,
  created_at: utc(row.created_at),
  updated_at: utc(row.updated_at)
})

export const awardView = (row: AwardRow): AwardedBadge => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  icon: row.icon,
  awarded_at: utc(row.awarded_at),
  source: row.source,
  awarded_by: row.awarded_by
})

export const campaignView = (row: CampaignRow): Campaign => ({
  id: row.id,
  name: row.name,
  description: row.description,
  starts_at: utc(row.starts_at),
  ends_at: utc(row.ends_at),
  xp_multiplier: row.xp_multiplier,
  applies_to: row.applies_to,
  is_active: row.is_active,
  created_at: utc(row.created_at),
  updated_at: utc(row.updated_at)
})
