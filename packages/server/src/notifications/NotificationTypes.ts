import type { NotificationCategory } from "@timebank/domain"

/** The e-mail switches of a member's notification preferences (decisions D12, dispatch rule 6). */
export type EmailPreference = "email_transactions" | "email_messages" | "email_reviews"

/** What a notification type is: its fixed category, and what governs its e-mail. */
export interface NotificationType {
  readonly category: NotificationCategory
  /** The member's switch that stops its e-mail, if any. */
  readonly emailPreference?: EmailPreference
  /** Sent at once whatever the member's digest frequency (dispatch rule 3, decisions D12). */
  readonly alwaysInstant?: true
}

/** Every type the service raises (decisions D12's table); a type's category never changes. */
export const NOTIFICATION_TYPES = {
  transaction_received: { category: "transactions", emailPreference: "email_transactions" },
  transaction_sent: { category: "transactions", emailPreference: "email_transactions" },
  review_request: { category: "transactions", emailPreference: "email_transactions" },
  member_registered: { category: "system" },
  welcome: { category: "system", alwaysInstant: true },
  listing_created: { category: "listings" },
  event_created: { category: "events" },
  event_updated: { category: "events" },
  event_cancelled: { category: "events", alwaysInstant: true },
  event_rsvp: { category: "events" },
  event_rsvp_confirmed: { category: "events" },
  event_waitlist_promoted: { category: "events", alwaysInstant: true },
  event_reminder: { category: "events", alwaysInstant: true },
  vol_opportunity_created: { category: "jobs" },
  vol_application_approved: { category: "jobs", alwaysInstant: true },
  vol_application_declined: { category: "jobs", alwaysInstant: true },
  vol_hours_approved: { category: "jobs", alwaysInstant: true },
  review_received: { category: "reviews", emailPreference: "email_reviews" },
  new_message: { category: "messages", emailPreference: "email_messages", alwaysInstant: true },
  connection_request: { category: "connections", alwaysInstant: true },
  connection_accepted: { category: "connections", alwaysInstant: true },
  group_created: { category: "groups" },
  group_member_joined: { category: "groups" },
  group_message: { category: "groups" },
  group_approved: { category: "groups", alwaysInstant: true },
  group_rejected: { category: "groups", alwaysInstant: true },
  safeguarding_flag: { category: "safeguarding" },
  match_suggested: { category: "listings" },
  match_approved: { category: "listings" },
  badge_awarded: { category: "social" }
} as const satisfies Record<string, NotificationType>

export type NotificationTypeName = keyof typeof NOTIFICATION_TYPES

export const typeOf = (name: NotificationTypeName): NotificationType => NOTIFICATION_TYPES[name]

/** Roles of the admin fan-out (spec "Domain events that trigger notifications"). */
export const ADMIN_FANOUT_ROLES = ["admin", "broker", "coordinator"] as const
/** Roles told of a safeguarding flag (decisions D12). */
export const SAFEGUARDING_ROLES = ["admin", "coordinator"] as const
