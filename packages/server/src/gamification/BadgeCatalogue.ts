import type { CriteriaEvent } from "@timebank/domain"

/** A badge of the default catalogue: data, not code (decisions D17 "Gamification"). */
export interface CatalogueBadge {
  readonly key: string
  readonly name: string
  readonly description: string
  readonly icon: string
  readonly criteria: { readonly event: CriteriaEvent; readonly threshold: number }
}

/**
 * The badges every community starts with, installed once per community the first time gamification is used there
 * (an admin may delete any of them, and it stays deleted). Thresholds count events, hours for `hours_volunteered`.
 */
export const BADGE_CATALOGUE: ReadonlyArray<CatalogueBadge> = [
  {
    key: "first_transfer",
    name: "First transfer",
    description: "Sent time credits to another member for the first time",
    icon: "🤝",
    criteria: { event: "transfer_sent", threshold: 1 }
  },
  {
    key: "volunteer_10h",
    name: "Volunteer: 10 hours",
    description: "10 approved volunteering hours",
    icon: "🌱",
    criteria: { event: "hours_volunteered", threshold: 10 }
  },
  {
    key: "volunteer_50h",
    name: "Volunteer: 50 hours",
    description: "50 approved volunteering hours",
    icon: "🌿",
    criteria: { event: "hours_volunteered", threshold: 50 }
  },
  {
    key: "volunteer_100h",
    name: "Volunteer: 100 hours",
    description: "100 approved volunteering hours",
    icon: "🌳",
    criteria: { event: "hours_volunteered", threshold: 100 }
  },
  {
    key: "first_event",
    name: "First event",
    description: "Checked in at a community event",
    icon: "🎟️",
    criteria: { event: "event_attended", threshold: 1 }
  },
  {
    key: "events_10",
    name: "Regular",
    description: "Checked in at 10 community events",
    icon: "🎉",
    criteria: { event: "event_attended", threshold: 10 }
  },
  {
    key: "first_review",
    name: "First review",
    description: "Wrote a review",
    icon: "✍️",
    criteria: { event: "review_given", threshold: 1 }
  },
  {
    key: "reviews_10",
    name: "Reviewer",
    description: "Wrote 10 reviews",
    icon: "⭐",
    criteria: { event: "review_given", threshold: 10 }
  },
  {
    key: "first_listing",
    name: "First listing",
    description: "Posted an offer or a request",
    icon: "📌",
    criteria: { event: "listing_posted", threshold: 1 }
  }
]
