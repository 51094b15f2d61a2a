import { FederationAccess } from "./FederationAccess.js"

/**
 * The access policies of `/api/v1/federation/*` (decisions D13, D13a), one tag per toggle and scope. Endpoints
 * declare theirs as endpoint middleware: `HttpApiEndpoint.get("list", "/api/v1/federation/listings")
 * .middleware(ListingsRead)`. The server builds each with `federationAccessLayer`.
 */

export class ListingsRead extends FederationAccess<ListingsRead>()("FederationListingsRead", {
  toggle: "listings",
  scope: "listings:read"
}) {}

/** Opportunities are listings to partners (D13a: `listings:read`), gated on the volunteering toggle. */
export class OpportunitiesRead extends FederationAccess<OpportunitiesRead>()("FederationOpportunitiesRead", {
  toggle: "volunteering",
  scope: "listings:read"
}) {}

export class MembersRead extends FederationAccess<MembersRead>()("FederationMembersRead", {
  toggle: "profiles",
  scope: "members:read"
}) {}

export class EventsRead extends FederationAccess<EventsRead>()("FederationEventsRead", {
  toggle: "events",
  scope: "events:read"
}) {}

export class GroupsRead extends FederationAccess<GroupsRead>()("FederationGroupsRead", {
  toggle: "groups",
  scope: "groups:read"
}) {}

export class ReviewsRead extends FederationAccess<ReviewsRead>()("FederationReviewsRead", {
  toggle: "reviews",
  scope: "reviews:read"
}) {}

export class ReviewsWrite extends FederationAccess<ReviewsWrite>()("FederationReviewsWrite", {
  toggle: "reviews",
  scope: "reviews:write",
  write: true
}) {}

export class MessagesWrite extends FederationAccess<MessagesWrite>()("FederationMessagesWrite", {
  toggle: "messaging",
  scope: "messages:write",
  write: true
}) {}

export class TransactionsRead extends FederationAccess<TransactionsRead>()("FederationTransactionsRead", {
  toggle: "transactions",
  scope: "transactions:read"
}) {}

export class TransactionsWrite extends FederationAccess<TransactionsWrite>()("FederationTransactionsWrite", {
  toggle: "transactions",
  scope: "transactions:write",
  write: true
}) {}

/** `webhooks/*`: only the platform switch and the whitelist, and only HMAC-signed requests. */
export class WebhooksSigned extends FederationAccess<WebhooksSigned>()("FederationWebhooksSigned", {
  toggle: null,
  scope: null,
  signedOnly: true
}) {}
