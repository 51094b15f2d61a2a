import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"

/** Who may create a group of the type: any member of the community, or its admins only. */
export const WhoCanCreate = Schema.Literal("members", "admins")
export type WhoCanCreate = typeof WhoCanCreate.Type

/** How a member joins a group of the type: at once (public groups), or as `pending` until an organiser approves. */
export const JoinPolicy = Schema.Literal("open", "approval")
export type JoinPolicy = typeof JoinPolicy.Type

export const GROUP_MAX_MEMBERS_LIMIT = 1_000_000

export const MaxMembers = Schema.Int.pipe(
  Schema.greaterThanOrEqualTo(1),
  Schema.lessThanOrEqualTo(GROUP_MAX_MEMBERS_LIMIT)
).annotations({ description: "Active members a group of the type holds at most, the owner included" })

/**
 * The policies of a group type (decisions D17 "Groups admin"), enforced on every group of the type. A group without
 * a type follows {@link DEFAULT_GROUP_TYPE_POLICIES}.
 */
export const GroupTypePolicies = Schema.Struct({
  who_can_create: WhoCanCreate.annotations({
    description: "`members`: any member creates groups of this type; `admins`: only community admins (403 otherwise)"
  }),
  join: JoinPolicy.annotations({
    description: "`open`: joining a public group makes an active member; `approval`: every join waits as `pending` " +
      "for an organiser (a private group's joins wait in any case)"
  }),
  max_members: Schema.NullOr(MaxMembers).annotations({
    description: "Active members a group holds at most, the owner included; null: no limit. A join or an approval " +
      "past it is 409 `GROUP_FULL`"
  }),
  chatroom: Schema.Boolean.annotations({
    description: "Whether groups of this type have a chatroom; without, reading or posting is 403 `CHATROOM_DISABLED`"
  })
})
export type GroupTypePolicies = typeof GroupTypePolicies.Type

/** What a group without a type follows (and what a new type starts with). */
export const DEFAULT_GROUP_TYPE_POLICIES: GroupTypePolicies = {
  who_can_create: "members",
  join: "open",
  max_members: null,
  chatroom: true
}

/** A partial change of the policies: known keys only, each with its own type. */
export const GroupTypePoliciesInput = Schema.partialWith(GroupTypePolicies, { exact: true }).annotations({
  parseOptions: { onExcessProperty: "error" },
  description: "Only the policies to change; the others stay"
})
export type GroupTypePoliciesInput = typeof GroupTypePoliciesInput.Type

/** 409 `IN_USE`: a group type that groups still have is not deleted (decisions D17). */
export class GroupTypeInUse extends ApiError<GroupTypeInUse>()("GroupTypeInUse", "IN_USE", 409) {}

/** 409 `GROUP_FULL`: the group has as many active members as its type allows (`max_members`). */
export class GroupFull extends ApiError<GroupFull>()("GroupFull", "GROUP_FULL", 409) {}

/** 403 `CHATROOM_DISABLED`: groups of this type have no chatroom (`chatroom: false`). */
export class GroupChatroomDisabled
  extends ApiError<GroupChatroomDisabled>()("GroupChatroomDisabled", "CHATROOM_DISABLED", 403)
{}
