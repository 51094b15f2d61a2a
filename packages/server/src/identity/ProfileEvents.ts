import { type DomainEvent, DomainEvents } from "@timebank/domain"
import type { UserRow } from "./UserRecord.js"

/** The profile fields partners see of an opted-in member (decisions D13a), in the order events name them. */
const SHARED_FIELDS = ["first_name", "last_name", "avatar_url", "bio", "location"] as const

type ProfileRow = Pick<UserRow, "id" | "federation_opt_in" | (typeof SHARED_FIELDS)[number]>

/**
 * The federation events of a profile change (decisions D13): an opt-out raises `MemberFederationOptedOut` (the
 * retraction, and nothing else); an opted-in member whose shared fields changed, or who just opted in, raises
 * `MemberProfileUpdated` with the profile as it now is. Raise them in the transaction of the change.
 */
export const profileEvents = (before: ProfileRow, after: ProfileRow, by: number): ReadonlyArray<DomainEvent> => {
  if (before.federation_opt_in && !after.federation_opt_in) {
    return [new DomainEvents.MemberFederationOptedOut({ user_id: after.id, changed_by: by })]
  }
  if (!after.federation_opt_in) return []
  const fields: Array<string> = SHARED_FIELDS.filter((field) => before[field] !== after[field])
  if (!before.federation_opt_in) fields.push("federation_opt_in")
  if (fields.length === 0) return []
  return [
    new DomainEvents.MemberProfileUpdated({
      user_id: after.id,
      fields,
      first_name: after.first_name,
      last_name: after.last_name,
      avatar_url: after.avatar_url,
      bio: after.bio,
      location: after.location,
      updated_by: by
    })
  ]
}
