import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { SAFEGUARDING_ROLES } from "./NotificationTypes.js"
import { notificationRules } from "./Rules.js"

/** Events of connections and moderation that notify (decisions D12's table). */
const SOCIAL_TAGS = ["ConnectionRequested", "ConnectionAccepted", "SafeguardingFlagRaised"] as const
type SocialTag = typeof SOCIAL_TAGS[number]

const memberLink = (userId: number) => `/members/${userId}`

/** The deliveries an event of these features raises; `source` is its outbox id. */
const socialDeliveries = (event: DomainEventOf<SocialTag>, source: string): ReadonlyArray<Delivery> => {
  switch (event._tag) {
    case "ConnectionRequested":
      return [{
        source,
        type: "connection_request",
        to: { members: [event.target_id] },
        actorId: event.requester_id,
        link: memberLink(event.requester_id),
        params: {},
        channels: "bell+email"
      }]
    case "ConnectionAccepted":
      return [{
        source,
        type: "connection_accepted",
        to: { members: [event.requester_id] },
        actorId: event.target_id,
        link: memberLink(event.target_id),
        params: {},
        channels: "bell+email"
      }]
    case "SafeguardingFlagRaised":
      // No actor: a staff member who muted the reporter must still hear of someone at risk (mute silences only
      // deliveries with an actor). The report the link opens names the reporter; the reporter, if staff, is not
      // told of their own flag.
      return [{
        source,
        type: "safeguarding_flag",
        to: { roles: SAFEGUARDING_ROLES, except: event.reporter_id },
        actorId: null,
        link: `/admin/reports/${event.report_id}`,
        params: { reason: event.reason },
        channels: "bell"
      }]
  }
}

/** The connections' and moderation's notification rules. */
export const socialRules = notificationRules(SOCIAL_TAGS, socialDeliveries)
