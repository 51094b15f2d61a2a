import { DomainEvents } from "@timebank/domain"
import type { GroupRow } from "./GroupRepo.js"

/** The group as its domain events carry it (what partners and subscribers read; decisions D13). */
export const snapshotOf = (row: GroupRow): typeof DomainEvents.GroupSnapshot.Type => ({
  name: row.name,
  description: row.description,
  visibility: row.visibility,
  status: row.status,
  type_id: row.type_id,
  location: row.location,
  owner_id: row.owner_id
})

/** How much of a chatroom message its bell shows, in code points. */
export const SNIPPET_LENGTH = 100

/** The start of a message for its bell: whole code points, an ellipsis when it was cut, on one line. */
export const snippetOf = (body: string, length = SNIPPET_LENGTH): string => {
  const flat = body.replace(/\s+/g, " ").trim()
  const points = [...flat]
  return points.length <= length ? flat : `${points.slice(0, length).join("").trimEnd()}…`
}

/** A membership became active (a join of a public group, or an approval by `approvedBy`). */
export const joinedEvent = (
  group: GroupRow,
  member: { readonly user_id: number; readonly role: string },
  approvedBy: number | null
) =>
  new DomainEvents.GroupMemberJoined({
    group_id: group.id,
    group_name: group.name,
    visibility: group.visibility,
    user_id: member.user_id,
    role: member.role,
    approved_by: approvedBy
  })

/** An active membership ended: the member left, or `by` banned them. */
export const leftEvent = (group: GroupRow, userId: number, reason: "left" | "banned", by: number | null) =>
  new DomainEvents.GroupMemberLeft({
    group_id: group.id,
    group_name: group.name,
    user_id: userId,
    reason,
    removed_by: by
  })
