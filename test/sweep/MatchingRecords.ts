import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's matching (decisions D17 "Matching"): approval required, a member whose skill is A's marker (so the
 * member's listing and opportunity, whose titles carry it, match), the member's matches computed, and the pending
 * ones kept as the `match` kind (`/admin/matching/approvals/{id}`).
 */
export const createMatchingRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly member2: Actor
    readonly marker: string
    readonly keep: (kind: string, id: unknown) => void
  }
): Promise<void> => {
  const { admin, keep, member2 } = who
  await steps.may("matching approval", admin, "PUT", "/api/v2/admin/matching/config", { approval_required: true })
  await steps.may("matching profile", member2, "PUT", "/api/v2/matches/profile", {
    skills: [who.marker],
    availability: { sat: ["morning"] }
  })
  await steps.may("matches", member2, "GET", "/api/v2/matches")
  const queue = await steps.call("matching approvals", admin, "GET", "/api/v2/admin/matching/approvals?status=pending")
  const pending = (queue.body as { data?: Array<{ id?: unknown }> } | undefined)?.data
  if (!Array.isArray(pending) || pending.length === 0) {
    steps.notes.push(`world: no pending match (${queue.status} ${queue.text.slice(0, 200)})`)
    return
  }
  for (const match of pending) keep("match", match.id)
}
