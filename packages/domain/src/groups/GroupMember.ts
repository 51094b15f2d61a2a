import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"
import { GroupId, GroupMemberStatus, GroupRole } from "./Group.js"

/** A membership as the members list, a join and a member change show it. */
export class GroupMember extends Schema.Class<GroupMember>("GroupMember")({
  group_id: GroupId,
  user: UserSummary,
  role: GroupRole,
  status: GroupMemberStatus,
  joined_at: Schema.DateTimeUtc.annotations({ description: "When the member joined or asked to join" })
}) {}

/** `POST /api/v2/groups/{id}/leave`. */
export const GroupLeft = Schema.Struct({ group_id: GroupId, user_id: UserId, left: Schema.Literal(true) })
export type GroupLeft = typeof GroupLeft.Type

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * `PUT /api/v2/groups/{id}/members/{userId}`: `status: active` approves a pending member (or lifts a ban),
 * `banned` bans; `role: owner` hands the group over (the old owner becomes an organiser).
 */
export const UpdateGroupMember = Schema.Struct({
  role: exact(GroupRole),
  status: exact(Schema.Literal("active", "banned"))
})
export type UpdateGroupMember = typeof UpdateGroupMember.Type

export const GroupMemberPath = Schema.Struct({ id: PathId(GroupId), userId: PathId(UserId) })

export const GROUP_MEMBERS_PER_PAGE_DEFAULT = 50
export const GROUP_MEMBERS_PER_PAGE_MAX = 100

/** `GET /api/v2/groups/{id}/members`: in member id order. */
export const ListGroupMembersParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(GROUP_MEMBERS_PER_PAGE_MAX)).annotations({ description: "Default 50" }),
  status: Schema.optional(GroupMemberStatus).annotations({
    description: "Only memberships with this status; `pending` and `banned` are for organisers and admins"
  })
})
export type ListGroupMembersParams = typeof ListGroupMembersParams.Type
