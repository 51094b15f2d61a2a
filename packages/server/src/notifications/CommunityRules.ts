import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { ADMIN_FANOUT_ROLES } from "./NotificationTypes.js"
import { notificationRules } from "./Rules.js"

/** Events of the ledger, identity, listings and volunteering that notify (decisions D12's table). */
const COMMUNITY_TAGS = [
  "TransactionCompleted",
  "UserRegistered",
  "ListingCreated",
  "VolOpportunityCreated",
  "VolApplicationReviewed",
  "VolHoursReviewed",
  "ReviewCreated"
] as const
type CommunityTag = typeof COMMUNITY_TAGS[number]

const transactionDeliveries = (event: DomainEventOf<"TransactionCompleted">, source: string): Array<Delivery> => {
  if (event.recipient_id === null) return []
  const link = `/wallet/transactions/${event.transaction_id}`
  // A federated credit has no member as its sender: the partner's member is named by name.
  const amount = {
    amount: event.amount,
    description: event.description,
    ...(event.sender_name === undefined ? {} : { actor: event.sender_name })
  }
  const received: Delivery = {
    source,
    type: "transaction_received",
    to: { members: [event.recipient_id] },
    actorId: event.sender_id,
    link,
    params: amount,
    channels: "bell+email"
  }
  if (event.sender_id === null) return [received]
  const sent: Delivery = {
    source,
    type: "transaction_sent",
    to: { members: [event.sender_id] },
    actorId: event.sender_id,
    link,
    params: amount,
    people: { recipient: event.recipient_id },
    channels: "email"
  }
  if (event.type !== "transfer") return [received, sent]
  // Both parties are asked for a review, once per transaction (decisions D12a), each naming the other. The sender
  // acted: a receiver who muted them is not asked either.
  const sender = event.sender_id
  const reviewRequest = (member: number, other: number): Delivery => ({
    source: `${source}:${member}`,
    type: "review_request",
    to: { members: [member] },
    actorId: sender,
    link,
    params: { amount: event.amount },
    people: { other },
    channels: "email"
  })
  return [received, sent, reviewRequest(sender, event.recipient_id), reviewRequest(event.recipient_id, sender)]
}

/** The deliveries an event of these features raises; `source` is its outbox id. */
const communityDeliveries = (event: DomainEventOf<CommunityTag>, source: string): ReadonlyArray<Delivery> => {
  switch (event._tag) {
    case "TransactionCompleted":
      return transactionDeliveries(event, source)
    case "UserRegistered":
      return [
        {
          source,
          type: "member_registered",
          to: { roles: ADMIN_FANOUT_ROLES, except: event.user_id },
          actorId: event.user_id,
          link: `/admin/users/${event.user_id}`,
          params: {},
          channels: "bell+email"
        },
        {
          source,
          type: "welcome",
          to: { members: [event.user_id] },
          actorId: null,
          link: null,
          params: {},
          channels: "bell+email"
        }
      ]
    case "ListingCreated":
      return [{
        source,
        type: "listing_created",
        to: { roles: ADMIN_FANOUT_ROLES, except: event.user_id },
        actorId: event.user_id,
        link: `/listings/${event.listing_id}`,
        params: { title: event.title },
        channels: "bell+email"
      }]
    case "VolOpportunityCreated":
      return [{
        source,
        type: "vol_opportunity_created",
        to: { roles: ADMIN_FANOUT_ROLES, except: event.created_by },
        actorId: event.created_by,
        link: `/volunteering/opportunities/${event.opportunity_id}`,
        params: { title: event.title, organisation: event.organisation_name ?? "" },
        channels: "bell+email"
      }]
    case "VolApplicationReviewed":
      return event.status !== "approved" && event.status !== "declined" ? [] : [{
        source,
        type: event.status === "approved" ? "vol_application_approved" : "vol_application_declined",
        to: { members: [event.user_id] },
        actorId: event.reviewed_by,
        link: `/volunteering/opportunities/${event.opportunity_id}`,
        params: { title: event.opportunity_title ?? "", organisation: event.organisation_name ?? "" },
        channels: "bell+email"
      }]
    case "VolHoursReviewed":
      return event.status !== "approved" ? [] : [{
        source,
        type: "vol_hours_approved",
        to: { members: [event.user_id] },
        actorId: event.reviewed_by,
        link: `/volunteering/organisations/${event.organisation_id}`,
        params: { hours: event.hours, organisation: event.organisation_name ?? "" },
        channels: "bell+email"
      }]
    case "ReviewCreated":
      return [{
        source,
        type: "review_received",
        to: { members: event.notify_user_ids ?? (event.target_type === "user" ? [event.target_id] : []) },
        actorId: event.reviewer_id,
        link: event.target_type === "user"
          ? `/members/${event.target_id}`
          : `/volunteering/organisations/${event.target_id}`,
        params: {
          rating: event.rating,
          target: event.target_name ?? "",
          ...(event.reviewer_name === undefined ? {} : { actor: event.reviewer_name })
        },
        channels: "bell+email"
      }]
  }
}

/** The ledger's, identity's, listings' and volunteering's notification rules. */
export const communityRules = notificationRules(COMMUNITY_TAGS, communityDeliveries)
