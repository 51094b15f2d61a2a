import type { CurrentTenant, DomainEventOf } from "@timebank/domain"
import { Effect } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import type { Delivery } from "./Dispatcher.js"
import { ADMIN_FANOUT_ROLES } from "./NotificationTypes.js"
import { notificationRules } from "./Rules.js"

/** The groups feature's events that notify (decisions D12's table). */
const GROUP_TAGS = [
  "GroupCreated",
  "GroupMemberJoined",
  "GroupChatroomMessageSent",
  "GroupApproved",
  "GroupRejected"
] as const
type GroupTag = typeof GROUP_TAGS[number]

const linkOf = (groupId: number) => `/groups/${groupId}`

/** The deliveries an event of the groups feature raises; `source` is its outbox id. */
const groupDeliveries = (
  event: DomainEventOf<GroupTag>,
  source: string
): Effect.Effect<ReadonlyArray<Delivery>, never, GroupDirectory | CurrentTenant> => {
  const link = linkOf(event.group_id)
  switch (event._tag) {
    // The owner hears how the review of their group ended (decisions D17 "Groups admin").
    case "GroupApproved":
      return Effect.succeed([{
        source,
        type: "group_approved",
        to: { members: [event.owner_id] },
        actorId: event.approved_by,
        link,
        params: { title: event.group_name },
        channels: "bell+email"
      }])
    case "GroupRejected":
      return Effect.succeed([{
        source,
        type: "group_rejected",
        to: { members: [event.owner_id] },
        actorId: event.rejected_by,
        link,
        params: { title: event.group_name, reason: event.reason ?? "none" },
        channels: "bell+email"
      }])
    case "GroupCreated":
      return Effect.succeed([{
        source,
        type: "group_created",
        to: { roles: ADMIN_FANOUT_ROLES, except: event.user_id },
        actorId: event.user_id,
        link,
        params: { title: event.group.name },
        channels: "bell+email"
      }])
    case "GroupMemberJoined":
      // The organisers hear of a new member, but not the one who joined nor the organiser who let them in.
      return Effect.map(
        Effect.flatMap(GroupDirectory, (groups) => groups.activeMemberIds(event.group_id, { organisersOnly: true })),
        (organisers): ReadonlyArray<Delivery> => {
          const to = organisers.filter((id) => id !== event.user_id && id !== event.approved_by)
          return to.length === 0 ? [] : [{
            source,
            type: "group_member_joined",
            to: { members: to },
            actorId: event.user_id,
            link,
            params: { title: event.group_name },
            channels: "bell+email",
            context: { groupId: event.group_id }
          }]
        }
      )
    case "GroupChatroomMessageSent":
      return Effect.map(
        Effect.flatMap(GroupDirectory, (groups) => groups.activeMemberIds(event.group_id)),
        (participants): ReadonlyArray<Delivery> => {
          const to = participants.filter((id) => id !== event.sender_id)
          return to.length === 0 ? [] : [{
            source,
            type: "group_message",
            to: { members: to },
            actorId: event.sender_id,
            link,
            params: { title: event.group_name, snippet: event.snippet },
            channels: "bell+email",
            context: { groupId: event.group_id }
          }]
        }
      )
  }
}

/** The groups feature's notification rules. */
export const groupRules = notificationRules(GROUP_TAGS, groupDeliveries)
