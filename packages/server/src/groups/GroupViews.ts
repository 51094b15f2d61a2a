import {
  Group,
  GroupMember,
  GroupMessage,
  GroupType,
  type GroupTypeId,
  type UserId,
  type UserSummary
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import type { GroupMessageRow } from "./GroupChatRepo.js"
import { GroupMemberRepo, type MemberRow } from "./GroupMemberRepo.js"
import type { GroupRow } from "./GroupRepo.js"
import { GroupTypeRepo, type GroupTypeRow, policiesOf } from "./GroupTypeRepo.js"

/** Shown for a member the users table no longer answers for (it keeps erased users, so this should not happen). */
const memberOf = (members: ReadonlyMap<number, UserSummary>, id: UserId): UserSummary =>
  members.get(id) ?? { id, first_name: "Deleted", last_name: "User", avatar_url: null }

const at = DateTime.unsafeFromDate

/**
 * Groups, memberships, chatroom messages and types as the API shows them. Each relation of a page (owners or
 * senders, member counts, the viewer's memberships, type names) is one query for the whole page, never one per item.
 */
export class GroupViews extends Effect.Service<GroupViews>()("GroupViews", {
  dependencies: [UserSummaries.Default, GroupMemberRepo.Default, GroupTypeRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const members = yield* GroupMemberRepo
    const types = yield* GroupTypeRepo

    /** Four queries per page, side by side: owners, active member counts, the viewer's memberships, type names. */
    const groups = (rows: ReadonlyArray<GroupRow>, viewerId: number) =>
      Effect.gen(function*() {
        const ids = rows.map((r) => r.id)
        const { counts, mine, names, owners } = yield* Effect.all({
          owners: users.byIds(rows.map((r) => r.owner_id)),
          counts: members.activeCounts(ids),
          mine: members.membershipsOf(viewerId, ids),
          names: types.names(rows.flatMap((r) => (r.type_id === null ? [] : [r.type_id])))
        }, { concurrency: "unbounded" })
        return rows.map((row) => {
          const membership = mine.get(row.id)
          const typeName = row.type_id === null ? undefined : names.get(row.type_id)
          return Group.make({
            id: row.id,
            name: row.name,
            description: row.description,
            type_id: row.type_id,
            type: row.type_id === null || typeName === undefined ? null : { id: row.type_id, name: typeName },
            visibility: row.visibility,
            location: row.location,
            latitude: row.latitude,
            longitude: row.longitude,
            status: row.status,
            owner: memberOf(owners, row.owner_id),
            member_count: counts.get(row.id) ?? 0,
            membership: membership === undefined ? null : { role: membership.role, status: membership.status },
            created_at: at(row.created_at),
            updated_at: at(row.updated_at)
          })
        })
      }).pipe(Effect.withSpan("GroupViews.groups", { attributes: { count: rows.length } }))

    /** One query per page: the members' summaries. */
    const memberships = (rows: ReadonlyArray<MemberRow>) =>
      Effect.map(users.byIds(rows.map((r) => r.user_id)), (people) =>
        rows.map((row) =>
          GroupMember.make({
            group_id: row.group_id,
            user: memberOf(people, row.user_id),
            role: row.role,
            status: row.status,
            joined_at: at(row.joined_at)
          })
        ))

    /** One query per page: the senders' summaries. */
    const messages = (rows: ReadonlyArray<GroupMessageRow>) =>
      Effect.map(users.byIds(rows.map((r) => r.sender_id)), (people) =>
        rows.map((row) =>
          GroupMessage.make({
            id: row.id,
            group_id: row.group_id,
            sender: memberOf(people, row.sender_id),
            body: row.body,
            created_at: at(row.created_at)
          })
        ))

    const groupType = (row: GroupTypeRow) =>
      GroupType.make({
        id: row.id as GroupTypeId,
        name: row.name,
        description: row.description,
        policies: policiesOf(row),
        created_at: at(row.created_at),
        updated_at: at(row.updated_at)
      })

    return {
      groups,
      group: (row: GroupRow, viewerId: number) => Effect.map(groups([row], viewerId), (views) => views[0]!),
      memberships,
      membership: (row: MemberRow) => Effect.map(memberships([row]), (views) => views[0]!),
      messages,
      message: (row: GroupMessageRow) => Effect.map(messages([row]), (views) => views[0]!),
      groupType
    } as const
  })
}) {}
