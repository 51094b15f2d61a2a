import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { notificationRules } from "./Rules.js"

/** The messaging feature's events that notify (decisions D12's table). */
const MESSAGING_TAGS = ["MessageSent"] as const
type MessagingTag = typeof MESSAGING_TAGS[number]

/** How much of a message its bell and e-mail show, in code points. */
export const MESSAGE_SNIPPET_LENGTH = 140

/** The start of a message for its notification: whole code points, an ellipsis when it was cut, on one line. */
export const messageSnippet = (body: string, length = MESSAGE_SNIPPET_LENGTH): string => {
  const flat = body.replace(/\s+/g, " ").trim()
  const points = [...flat]
  return points.length <= length ? flat : `${points.slice(0, length).join("").trimEnd()}…`
}

/**
 * The recipient hears of a new message at once (an always-instant type), unless they muted the sender. The link
 * opens the conversation, which is addressed by the other member: the sender.
 */
const messagingDeliveries = (event: DomainEventOf<MessagingTag>, source: string): ReadonlyArray<Delivery> => [{
  source,
  type: "new_message",
  to: { members: [event.recipient_id] },
  actorId: event.sender_id,
  link: `/messages/${event.sender_id}`,
  params: { snippet: messageSnippet(event.body) },
  channels: "bell+email",
  context: { threadId: event.thread_id }
}]

/** Direct messages' notification rules. */
export const messagingRules = notificationRules(MESSAGING_TAGS, messagingDeliveries)
