import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's groups administration records (decisions D17 "Groups admin"): a group waiting for review (the
 * community reviews new groups for the time it takes a member to create one) and a member's report about the
 * admin's group, so that `/admin/groups/approvals/{groupId}/…` (kind `pending group`) and the moderation queue
 * name A's records in every pass; and one featured group.
 */
export const createGroupAdminRecords = async (
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
  await steps.may("group review on", admin, "PUT", "/api/v2/admin/settings", { group_approval_required: true })
  const pending = await steps.may("pending group", member, "POST", "/api/v2/groups", {
    name: `Pending group ${m}`,
    description: `Pending group description ${m}`,
    visibility: "public",
    location: `Place ${m}`
  })
  await steps.may("group review off", admin, "PUT", "/api/v2/admin/settings", { group_approval_required: false })
  keep("pending group", pending?.["id"])
  keep("group", pending?.["id"])
  const featured = await steps.may("featured group", admin, "POST", "/api/v2/groups", {
    name: `Featured group ${m}`,
    description: `Featured group description ${m}`,
    visibility: "public"
  })
  keep("group", featured?.["id"])
  if (featured === undefined) return
  await steps.may("feature group", admin, "PUT", `/api/v2/admin/groups/${String(featured["id"])}/toggle-featured`)
  await steps.may("group report", member, "POST", "/api/v2/reports", {
    target_type: "group",
    target_id: featured["id"],
    reason: `Group report ${m}`
  })
}
