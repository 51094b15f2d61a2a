import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's gamification records (decisions D17): a badge of its own (awarded by hand to the member, so
 * `/admin/users/{id}/badges/{badgeId}` names a real award) and a campaign. Texts carry A's marker.
 */
export const createGamificationRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly member: Actor
    readonly marker: string
    readonly keep: (kind: string, id: unknown) => void
  }
): Promise<void> => {
  const { admin, keep, member } = who
  const m = who.marker
  const badge = await steps.may("badge", admin, "POST", "/api/v2/admin/gamification/badges", {
    key: `sweep-${m}`.slice(0, 50),
    name: `Badge ${m}`,
    description: `Badge description ${m}`,
    icon: "*",
    criteria: { event: "transfer_sent", threshold: 3 }
  })
  keep("badge", badge?.["id"])
  const manual = await steps.may("manual badge", admin, "POST", "/api/v2/admin/gamification/badges", {
    key: `manual-${m}`.slice(0, 50),
    name: `Manual badge ${m}`
  })
  keep("badge", manual?.["id"])
  if (manual !== undefined) {
    await steps.may("badge award", admin, "POST", `/api/v2/admin/users/${member.userId}/badges`, {
      badge_id: manual["id"]
    })
  }
  const campaign = await steps.may("campaign", admin, "POST", "/api/v2/admin/gamification/campaigns", {
    name: `Campaign ${m}`,
    description: `Campaign description ${m}`,
    starts_at: new Date(Date.now() - 3_600_000).toISOString(),
    ends_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    xp_multiplier: 2,
    applies_to: ["transfer_sent", "listing_posted"]
  })
  keep("campaign", campaign?.["id"])
}
