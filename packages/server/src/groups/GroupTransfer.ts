import { DomainEvents } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { joinedEvent, snapshotOf } from "./GroupEvents.js"
import { GroupMemberRepo, type MemberRow } from "./GroupMemberRepo.js"
import { GroupRepo } from "./GroupRepo.js"
import { type GroupAccessContext, groupNotFound } from "./GroupsPolicy.js"

/**
 * Handing a group over: a group has one owner (`groups.owner_id`, and the one membership of role `owner`). The new
 * owner's membership becomes `owner` and active, the old owner's `organiser`, in one transaction on the locked group.
 */
export class GroupTransfer extends Effect.Service<GroupTransfer>()("GroupTransfer", {
  dependencies: [GroupRepo.Default, GroupMemberRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const groups = yield* GroupRepo
    const members = yield* GroupMemberRepo
    const outbox = yield* Outbox

    const orGone = <A>(found: Option.Option<A>) =>
      Option.match(found, { onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })

    /** Makes `target` the owner; answers their new membership. The caller checked who may do it. */
    const handOver = (ctx: GroupAccessContext, target: MemberRow) =>
      db.transaction(Effect.gen(function*() {
        const group = yield* Effect.flatMap(groups.lock(ctx.group.id), orGone)
        yield* members.update(group.id, group.owner_id, { role: "organiser" })
        const owner = yield* Effect.flatMap(
          members.update(group.id, target.user_id, { role: "owner", status: "active" }),
          orGone
        )
        const updated = yield* Effect.flatMap(groups.update(group.id, { owner_id: target.user_id }), orGone)
        yield* outbox.appendAll([
          new DomainEvents.GroupUpdated({
            group_id: group.id,
            fields: ["owner_id"],
            group: snapshotOf(updated),
            updated_by: ctx.actor.userId
          }),
          ...(target.status === "active" ? [] : [joinedEvent(updated, owner, ctx.actor.userId)])
        ])
        return owner
      }))

    return { handOver } as const
  })
}) {}
