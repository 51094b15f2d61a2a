import {
  DEFAULT_GROUP_TYPE_POLICIES,
  Forbidden,
  GroupChatroomDisabled,
  GroupFull,
  type GroupTypePolicies,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { GroupMemberRepo } from "../GroupMemberRepo.js"
import { GroupRepo } from "../GroupRepo.js"
import { groupNotFound } from "../GroupsPolicy.js"
import { GroupTypeRepo, policiesOf } from "../GroupTypeRepo.js"

/**
 * The policies of group types (decisions D17 "Groups admin") as the group services apply them: who creates groups of
 * a type, whether joining waits for approval, how many active members a group holds, whether it has a chatroom. A
 * group without a type (or whose type is gone) follows the defaults: what groups did before types had policies.
 */
export class GroupPolicies extends Effect.Service<GroupPolicies>()("GroupPolicies", {
  dependencies: [GroupTypeRepo.Default, GroupRepo.Default, GroupMemberRepo.Default],
  effect: Effect.gen(function*() {
    const types = yield* GroupTypeRepo
    const groups = yield* GroupRepo
    const members = yield* GroupMemberRepo

    /** The policies of the type `typeId` (null: no type). */
    const of = (typeId: number | null) =>
      typeId === null
        ? Effect.succeed(DEFAULT_GROUP_TYPE_POLICIES)
        : Effect.map(
          types.findById(typeId),
          Option.match({ onNone: (): GroupTypePolicies => DEFAULT_GROUP_TYPE_POLICIES, onSome: policiesOf })
        )

    /**
     * A group may have the type `typeId` (being created with it, or moved to it) by this caller: a type of this
     * community (else 422 on `type_id`) that admins alone give groups when its `who_can_create` is `admins` (else 403
     * `FORBIDDEN` on `type_id`). Inside the transaction that writes the group, the type stays until it commits.
     */
    const checkType = (typeId: number | null | undefined, byAdmin: boolean) =>
      Effect.gen(function*() {
        if (typeId === undefined || typeId === null) return
        const type = yield* types.share(typeId)
        if (Option.isNone(type)) {
          return yield* ValidationFailed.field("type_id", "is not a group type of this community")
        }
        if (type.value.who_can_create === "admins" && !byAdmin) {
          return yield* new Forbidden({ message: "Only community admins create groups of this type", field: "type_id" })
        }
      })

    /**
     * One more active member for the group, or 409 `GROUP_FULL` when its type's `max_members` are all there. Call
     * inside the transaction that makes the membership active: the group's row stays locked until it commits, so
     * concurrent joins and approvals of one group count one after another and never overfill it.
     */
    const takeSeat = (groupId: number) =>
      Effect.gen(function*() {
        const group = yield* Effect.flatMap(
          groups.lock(groupId),
          Option.match({ onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })
        )
        const { max_members } = yield* of(group.type_id)
        if (max_members === null) return
        const active = (yield* members.activeCounts([group.id])).get(group.id) ?? 0
        if (active >= max_members) {
          return yield* new GroupFull({
            message: `This group is full: its type allows ${max_members} active members`
          })
        }
      })

    /** 403 `CHATROOM_DISABLED` when the group's type has no chatroom. */
    const checkChatroom = (group: { readonly type_id: number | null }) =>
      Effect.flatMap(of(group.type_id), (policies) =>
        policies.chatroom
          ? Effect.void
          : Effect.fail(new GroupChatroomDisabled({ message: "Groups of this type have no chatroom" })))

    return { of, checkType, takeSeat, checkChatroom } as const
  })
}) {}
