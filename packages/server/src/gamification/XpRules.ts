import type { CriteriaEvent, DomainEventOf } from "@timebank/domain"

/** The domain events that earn points and count towards badges (decisions D17 "Gamification"). */
export const XP_TAGS = [
  "TransactionCompleted",
  "VolHoursReviewed",
  "CheckedIn",
  "ReviewCreated",
  "ListingCreated"
] as const
export type XpTag = typeof XP_TAGS[number]

/** Points per occurrence (per approved hour for `hours_volunteered`) before any campaign's multiplier. */
export const BASE_POINTS: Readonly<Record<CriteriaEvent, number>> = {
  transfer_sent: 10,
  transfer_received: 5,
  hours_volunteered: 10,
  event_attended: 15,
  review_given: 5,
  listing_posted: 5
}

/** One member's share of a domain event: what they did and how much of it (1, or the hours approved). */
export interface XpEntry {
  readonly userId: number
  readonly event: CriteriaEvent
  readonly quantity: number
}

/**
 * What a domain event earns whom: a member-to-member transfer (not grants, deposits, check-in or auto-pay credits,
 * which are the community's own moves) for its sender and its recipient; approved volunteering hours; a check-in at
 * an event; a review by a member here (not a partner's); a new listing.
 */
export const entriesOf = (event: DomainEventOf<XpTag>): ReadonlyArray<XpEntry> => {
  switch (event._tag) {
    case "TransactionCompleted": {
      if (event.type !== "transfer") return []
      const entries: Array<XpEntry> = []
      if (event.sender_id !== null) entries.push({ userId: event.sender_id, event: "transfer_sent", quantity: 1 })
      if (event.recipient_id !== null) {
        entries.push({ userId: event.recipient_id, event: "transfer_received", quantity: 1 })
      }
      return entries
    }
    case "VolHoursReviewed":
      return event.status === "approved" && event.hours > 0
        ? [{ userId: event.user_id, event: "hours_volunteered", quantity: event.hours }]
        : []
    case "CheckedIn":
      return [{ userId: event.user_id, event: "event_attended", quantity: 1 }]
    case "ReviewCreated":
      return event.reviewer_id === null ? [] : [{ userId: event.reviewer_id, event: "review_given", quantity: 1 }]
    case "ListingCreated":
      return [{ userId: event.user_id, event: "listing_posted", quantity: 1 }]
  }
}

/** A campaign as the multiplier sees it. */
export interface CampaignWindow {
  readonly startsAt: Date
  readonly endsAt: Date
  readonly multiplier: number
  readonly appliesTo: ReadonlyArray<string>
  readonly isActive: boolean
}

/**
 * The multiplier of an event of `event` at `at`: the highest of the active campaigns that cover the event type and
 * whose window [starts_at, ends_at) contains `at`; 1 when none does. Overlapping campaigns do not compound.
 */
export const multiplierAt = (campaigns: ReadonlyArray<CampaignWindow>, event: CriteriaEvent, at: Date): number =>
  campaigns.reduce(
    (best, c) =>
      c.isActive && c.appliesTo.includes(event) && c.startsAt.getTime() <= at.getTime() &&
        at.getTime() < c.endsAt.getTime()
        ? Math.max(best, c.multiplier)
        : best,
    1
  )

/** The points of an entry under a multiplier, rounded to a whole point. */
export const pointsOf = (entry: XpEntry, multiplier: number): number =>
  Math.round(BASE_POINTS[entry.event] * entry.quantity * multiplier)
