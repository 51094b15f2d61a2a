import type { DomainEventOf } from "@timebank/domain"
import type { Delivery } from "./Dispatcher.js"
import { notificationRules } from "./Rules.js"

/** Events of gamification that notify (decisions D12's table: `badge_awarded`). */
const GAMIFICATION_TAGS = ["BadgeAwarded"] as const

/**
 * The member who received a badge hears of it (a bell). Its link names the badge, so two badges in one minute are
 * two bells. No actor, even for an admin's award: muting an admin must not hide one's own badge.
 */
const gamificationDeliveries = (event: DomainEventOf<"BadgeAwarded">, source: string): ReadonlyArray<Delivery> => [{
  source,
  type: "badge_awarded",
  to: { members: [event.user_id] },
  actorId: null,
  link: `/badges/${event.badge_id}`,
  params: { title: event.badge_name },
  channels: "bell"
}]

/** Gamification's notification rules. */
export const gamificationRules = notificationRules(GAMIFICATION_TAGS, gamificationDeliveries)
