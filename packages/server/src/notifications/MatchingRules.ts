import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { notificationRules } from "./Rules.js"

/** Events of matching that notify (decisions D17 "Matching"). */
const MATCHING_TAGS = ["MatchesAwaitingApproval", "MatchApproved"] as const
type MatchingTag = typeof MATCHING_TAGS[number]

/**
 * New matches waiting for approval tell the community's admins (one bell per computation, however many matches);
 * an approved match tells its member. No actor: nobody the member could have muted made the suggestion.
 */
const matchingDeliveries = (event: DomainEventOf<MatchingTag>, source: string): ReadonlyArray<Delivery> => {
  switch (event._tag) {
    case "MatchesAwaitingApproval":
      return [{
        source,
        type: "match_suggested",
        to: { roles: ["admin"], except: null },
        actorId: null,
        link: `/admin/matching/approvals?user_id=${event.user_id}`,
        params: {},
        people: { other: event.user_id },
        channels: "bell"
      }]
    case "MatchApproved":
      return [{
        source,
        type: "match_approved",
        to: { members: [event.user_id] },
        actorId: null,
        link: event.target_type === "listing"
          ? `/listings/${event.target_id}`
          : `/volunteering/opportunities/${event.target_id}`,
        params: { title: event.title },
        channels: "bell"
      }]
  }
}

/** Matching's notification rules. */
export const matchingRules = notificationRules(MATCHING_TAGS, matchingDeliveries)
