import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { messageSnippet } from "./MessagingRules.js"
import { notificationRules } from "./Rules.js"

/** Federation's events that notify our members. */
const FEDERATION_TAGS = ["FederatedMessageReceived"] as const
type FederationTag = typeof FEDERATION_TAGS[number]

/**
 * A message from a partner community's member is a `new_message` like a member's (always instant), with no local
 * actor: the sender is named by the partner's name for them and the partner's, and the link opens the member's
 * federated messages.
 */
const federationDeliveries = (event: DomainEventOf<FederationTag>, source: string): ReadonlyArray<Delivery> => [{
  source,
  type: "new_message",
  to: { members: [event.recipient_id] },
  actorId: null,
  link: `/federation/messages/${event.message_id}`,
  params: { snippet: messageSnippet(event.body), actor: `${event.sender_name} (${event.partner_name})` },
  channels: "bell+email"
}]

/** Federation's notification rules. */
export const federationRules = notificationRules(FEDERATION_TAGS, federationDeliveries)
