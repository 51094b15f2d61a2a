import {
  DomainEvents,
  Forbidden,
  GROUP_MESSAGES_PER_PAGE_DEFAULT,
  type GroupId,
  GroupStateConflict,
  type ListGroupMessagesParams,
  OPEN_GROUP_STATUSES
} from "@timebank/domain"
import { Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { TenantSql } from "../platform/TenantSql.js"
import { GroupChatRepo } from "./GroupChatRepo.js"
import { snippetOf } from "./GroupEvents.js"
import { canReadChat, GroupAccess, GroupParticipant, requireGroupParticipant } from "./GroupsPolicy.js"
import { GroupViews } from "./GroupViews.js"
import { GroupPolicies } from "./types/GroupPolicies.js"

/**
 * A group's chatroom: its active members write, they and admins read (decisions D14: members only); none at all when
 * the group's type says `chatroom: false` (403 `CHATROOM_DISABLED`).
 */
export class GroupChatService extends Effect.Service<GroupChatService>()("GroupChatService", {
  dependencies: [
    GroupChatRepo.Default,
    GroupAccess.Default,
    GroupViews.Default,
    GroupPolicies.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* GroupChatRepo
    const access = yield* GroupAccess
    const views = yield* GroupViews
    const policies = yield* GroupPolicies
    const outbox = yield* Outbox

    /** Two queries per page: the messages and their senders. */
    const list = Effect.fn("GroupChat.list")(function*(id: GroupId, params: ListGroupMessagesParams) {
      const ctx = yield* access.visible(id)
      yield* policies.checkChatroom(ctx.group)
      if (!canReadChat(ctx)) {
        return yield* new Forbidden({ message: "Only active members of this group read its chatroom" })
      }
      const perPage = params.per_page ?? GROUP_MESSAGES_PER_PAGE_DEFAULT
      const rows = yield* repo.list({ groupId: ctx.group.id, before: params.cursor, limit: perPage + 1 })
      return yield* idCursorPage(rows, perPage, views.messages)
    })

    const write = (body: string) =>
      Effect.gen(function*() {
        const { actor, group } = yield* GroupParticipant
        if (!OPEN_GROUP_STATUSES.includes(group.status)) {
          return yield* new GroupStateConflict({ message: `This group is ${group.status}; its chatroom is closed` })
        }
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(group.id, actor.userId, body)
          yield* outbox.append(
            new DomainEvents.GroupChatroomMessageSent({
              group_id: group.id,
              group_name: group.name,
              message_id: row.id,
              sender_id: actor.userId,
              snippet: snippetOf(body)
            })
          )
          return row
        }))
        return yield* views.message(row)
      })

    const post = Effect.fn("GroupChat.post")(function*(id: GroupId, body: string) {
      const ctx = yield* access.visible(id)
      yield* policies.checkChatroom(ctx.group)
      return yield* requireGroupParticipant(ctx)(write(body))
    })

    return { list, post } as const
  })
}) {}
