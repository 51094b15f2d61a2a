import type { DomainEventOf, DomainEvents, FederationToggle } from "@timebank/domain"
import { Option } from "effect"

type CommunityEventSnapshot = DomainEvents.CommunityEventSnapshot

/**
 * Which domain events become outbound webhooks (the spec's "Outbound federation webhooks" table, names of decisions
 * D13), and what each carries to partners. Pure: the subscriber adds the gating (switches, toggle, partners) and the
 * opt-in check of {@link OutboundWebhook.members} in SQL.
 *
 * `data` holds only what may cross (D13a "What crosses"): ids, titles and public fields, never e-mail, phone,
 * balance, role or a private link. Records use the shapes our own ingest reads back (`id`, `user_id`/`owner_id`).
 */

export const WEBHOOK_TAGS = [
  "ListingCreated",
  "ListingUpdated",
  "TransactionCompleted",
  "MessageSent",
  "ReviewCreated",
  "ConnectionAccepted",
  "CommunityEventCreated",
  "CommunityEventUpdated",
  "GroupCreated",
  "GroupUpdated",
  "GroupDeleted",
  "GroupMemberJoined",
  "GroupMemberLeft",
  "VolOpportunityCreated",
  "VolOpportunityUpdated",
  "MemberProfileUpdated",
  "MemberFederationOptedOut"
] as const
export type WebhookTag = (typeof WEBHOOK_TAGS)[number]

/**
 * Each webhook event and the toggle it needs; null = a retraction that goes whatever the toggles say (a member
 * who opts out must be forgotten by partners holding any of their data).
 */
export const WEBHOOK_EVENT_TOGGLES = {
  "listing.created": "listings",
  "listing.updated": "listings",
  "transaction.completed": "transactions",
  "message.sent": "messaging",
  "review.created": "reviews",
  "connection.accepted": "profiles",
  "event.created": "events",
  "event.updated": "events",
  "group.created": "groups",
  "group.updated": "groups",
  "group.deleted": "groups",
  "group.member_joined": "groups",
  "group.member_left": "groups",
  "volunteering.opportunity_created": "volunteering",
  "volunteering.opportunity_updated": "volunteering",
  "member.profile_updated": "profiles",
  "member.opted_out": null
} as const satisfies Record<string, FederationToggle | null>
export type WebhookEventName = keyof typeof WEBHOOK_EVENT_TOGGLES

export const WEBHOOK_EVENTS = Object.keys(WEBHOOK_EVENT_TOGGLES) as ReadonlyArray<WebhookEventName>

/** The webhook events a community's toggles let through now. */
export const eventsAllowedBy = (toggles: Readonly<Record<string, boolean>>): ReadonlyArray<WebhookEventName> =>
  WEBHOOK_EVENTS.filter((event) => {
    const toggle = WEBHOOK_EVENT_TOGGLES[event]
    return toggle === null || toggles[toggle] === true
  })

export interface OutboundWebhook {
  readonly event: WebhookEventName
  /** Members who must be opted in to federation (checked when the deliveries are written); none: no member's data. */
  readonly members: ReadonlyArray<number>
  readonly data: Readonly<Record<string, unknown>>
}

const webhook = (
  event: WebhookEventName,
  members: ReadonlyArray<number | null>,
  data: Readonly<Record<string, unknown>>
): Option.Option<OutboundWebhook> =>
  Option.some({ event, members: members.filter((m): m is number => m !== null), data })

/** A community event as partners read it: no online link or video URL (attendees get those), no group. */
const eventData = (e: CommunityEventSnapshot) => ({
  id: e.id,
  user_id: e.user_id,
  title: e.title,
  description: e.description,
  start_time: e.start_time,
  end_time: e.end_time,
  location: e.location,
  latitude: e.latitude,
  longitude: e.longitude,
  max_attendees: e.max_attendees,
  is_online: e.is_online,
  allow_remote_attendance: e.allow_remote_attendance,
  image_url: e.image_url,
  cover_image: e.cover_image,
  category_id: e.category_id,
  federated_visibility: e.federated_visibility,
  status: e.status,
  cancel_reason: e.cancel_reason,
  is_recurring_template: e.is_recurring_template,
  parent_event_id: e.parent_event_id,
  occurrence_date: e.occurrence_date,
  series_id: e.series_id
})

const shared = (e: CommunityEventSnapshot | undefined): e is CommunityEventSnapshot =>
  e !== undefined && e.federated_visibility !== "none"

/** The webhook a domain event makes, if it makes one (some events of these tags stay local; see each case). */
export const outboundWebhookOf = (e: DomainEventOf<WebhookTag>): Option.Option<OutboundWebhook> => {
  switch (e._tag) {
    case "ListingCreated":
      // Only active listings cross; one waiting for approval goes out as `listing.updated` when approved.
      return e.status !== "active" ? Option.none() : webhook("listing.created", [e.user_id], {
        id: e.listing_id,
        user_id: e.user_id,
        type: e.type,
        title: e.title,
        status: e.status,
        category_id: e.category_id
      })
    case "ListingUpdated":
      // An active listing, or one that just stopped being active (partners drop it on its status).
      return e.status !== "active" && e.previous_status !== "active" ? Option.none() : webhook(
        "listing.updated",
        [e.user_id],
        { id: e.listing_id, user_id: e.user_id, fields: e.fields, status: e.status }
      )
    case "TransactionCompleted":
      // Transfers between two members, both opted in; grants, deposits, check-ins and partners' own credits stay.
      return e.type !== "transfer" || e.sender_id === null || e.recipient_id === null ? Option.none() : webhook(
        "transaction.completed",
        [e.sender_id, e.recipient_id],
        {
          id: e.transaction_id,
          amount: e.amount,
          sender_id: e.sender_id,
          recipient_id: e.recipient_id,
          listing_id: e.listing_id,
          description: e.description
        }
      )
    case "MessageSent":
      return webhook("message.sent", [e.sender_id, e.recipient_id], {
        id: e.message_id,
        thread_id: e.thread_id,
        sender_id: e.sender_id,
        recipient_id: e.recipient_id,
        subject: e.subject,
        body: e.body
      })
    case "ReviewCreated":
      return webhook("review.created", [e.reviewer_id, e.target_type === "user" ? e.target_id : null], {
        id: e.review_id,
        reviewer_id: e.reviewer_id,
        target_type: e.target_type,
        target_id: e.target_id,
        ...(e.target_type === "user" ? { member_id: e.target_id } : {}),
        rating: e.rating
      })
    case "ConnectionAccepted":
      return webhook("connection.accepted", [e.requester_id, e.target_id], {
        id: e.connection_id,
        requester_id: e.requester_id,
        target_id: e.target_id
      })
    case "CommunityEventCreated":
      return shared(e.event) ? webhook("event.created", [], eventData(e.event)) : Option.none()
    case "CommunityEventUpdated":
      // A cover change carries no snapshot (nor its visibility): partners see the cover with the next edit.
      return shared(e.event)
        ? webhook("event.updated", [], { ...eventData(e.event), fields: e.fields })
        : Option.none()
    case "GroupCreated":
      return e.group.visibility !== "public" || e.group.status !== "active" ? Option.none() : webhook(
        "group.created",
        [e.group.owner_id],
        { id: e.group_id, ...e.group }
      )
    case "GroupUpdated": {
      const g = e.group
      if (g.visibility === "public" && (g.status === "active" || e.previous_status === "active")) {
        return webhook("group.updated", [g.owner_id], { id: e.group_id, ...g, fields: e.fields })
      }
      // Made private: partners learn only that, to drop it.
      return e.fields.includes("visibility")
        ? webhook("group.updated", [g.owner_id], {
          id: e.group_id,
          owner_id: g.owner_id,
          visibility: g.visibility,
          status: g.status,
          fields: e.fields
        })
        : Option.none()
    }
    case "GroupDeleted":
      return e.visibility === "public" ? webhook("group.deleted", [], { id: e.group_id }) : Option.none()
    case "GroupMemberJoined":
      return e.visibility === "public"
        ? webhook("group.member_joined", [e.user_id], { group_id: e.group_id, user_id: e.user_id, role: e.role })
        : Option.none()
    case "GroupMemberLeft":
      // Why they left (a ban) stays here.
      return webhook("group.member_left", [e.user_id], { group_id: e.group_id, user_id: e.user_id })
    case "VolOpportunityCreated":
      return e.status !== "open" ? Option.none() : webhook("volunteering.opportunity_created", [], {
        id: e.opportunity_id,
        organisation_id: e.organisation_id,
        ...(e.organisation_name === undefined ? {} : { organisation_name: e.organisation_name }),
        title: e.title,
        status: e.status
      })
    case "VolOpportunityUpdated":
      return webhook("volunteering.opportunity_updated", [], {
        id: e.opportunity_id,
        organisation_id: e.organisation_id,
        title: e.title,
        status: e.status,
        fields: e.fields
      })
    case "MemberProfileUpdated":
      return webhook("member.profile_updated", [e.user_id], {
        member_id: e.user_id,
        first_name: e.first_name,
        last_name: e.last_name,
        avatar_url: e.avatar_url,
        bio: e.bio,
        location: e.location,
        fields: e.fields
      })
    case "MemberFederationOptedOut":
      // The retraction: sent although the member is no longer opted in.
      return webhook("member.opted_out", [], { member_id: e.user_id })
  }
}
