import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's group type (decisions D17 "Groups admin"): made by the admin with A's marker, its policies set (joins
 * wait for approval, a generous member limit), and a group of the type the admin owns, so `/admin/groups/types/{id}`
 * and `type_id` name a record of A in every pass.
 */
export const createGroupTypeRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly marker: string
    readonly keep: (kind: string, id: unknown) => void
  }
): Promise<void> => {
  const { admin, keep } = who
  const m = who.marker
  const type = await steps.may("group type", admin, "POST", "/api/v2/admin/groups/types", {
    name: `Group type ${m}`,
    description: `Group type description ${m}`
  })
  keep("group-type", type?.["id"])
  if (type === undefined) return
  const path = `/api/v2/admin/groups/types/${String(type["id"])}`
  await steps.may("group type policies", admin, "PUT", `${path}/policies`, { join: "approval", max_members: 500 })
  const group = await steps.may("typed group", admin, "POST", "/api/v2/groups", {
    name: `Typed group ${m}`,
    description: `Typed group description ${m}`,
    visibility: "public",
    type_id: type["id"]
  })
  keep("group", group?.["id"])
}
