import {
  AlreadyExists,
  cursorPage,
  encodeCursor,
  Forbidden,
  GROUP_MEMBERS_PER_PAGE_DEFAULT,
  type GroupId,
  type GroupLeft,
  type GroupMemberStatus,
  type GroupRole,
  GroupStateConflict,
  type ListGroupMembersParams,
  NotFound,
  OPEN_GROUP_STATUSES,
  type UpdateGroupMember,
  type UserId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { joinedEvent, leftEvent } from "./GroupEvents.js"
import { GroupMemberRepo, type MemberRow } from "./GroupMemberRepo.js"
import {
  canManage,
  canReadMembers,
  GroupAccess,
  type GroupAccessContext,
  GroupManager,
  isOwner,
  requireGroupManager
} from "./GroupsPolicy.js"
import { GroupTransfer } from "./GroupTransfer.js"
import { GroupViews } from "./GroupViews.js"
import { GroupPolicies } from "./types/GroupPolicies.js"

const membershipNotFound = () => NotFound.of("Membership")

/** The domain event of a membership's status change, if it is one partners and organisers hear of. */
const statusEvent = (ctx: GroupAccessContext, before: MemberRow, after: MemberRow, by: number) =>
  before.status !== "active" && after.status === "active"
    ? [joinedEvent(ctx.group, after, by)]
    : before.status === "active" && after.status === "banned"
    ? [leftEvent(ctx.group, after.user_id, "banned", by)]
    : []

/** Joining, leaving, the members list and what organisers decide about memberships (decisions D14a). */
export class GroupMembersService extends Effect.Service<GroupMembersService>()("GroupMembersService", {
  dependencies: [
    GroupMemberRepo.Default,
    GroupAccess.Default,
    GroupViews.Default,
    GroupTransfer.Default,
    GroupPolicies.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* GroupMemberRepo
    const access = yield* GroupAccess
    const views = yield* GroupViews
    const transfer = yield* GroupTransfer
    const policies = yield* GroupPolicies
    const outbox = yield* Outbox

    const refuseExisting = (existing: MemberRow) =>
      existing.status === "banned"
        ? Effect.fail(new Forbidden({ message: "You are banned from this group" }))
        : Effect.fail(
          new AlreadyExists({
            message: existing.status === "pending"
              ? "You have asked to join this group already"
              : "You are a member of this group already"
          })
        )

    const join = Effect.fn("GroupMembers.join")(
      function*(id: GroupId) {
        const member = yield* CommunityMember
        const ctx = yield* access.visible(id)
        if (Option.isSome(ctx.membership)) return yield* refuseExisting(ctx.membership.value)
        if (!OPEN_GROUP_STATUSES.includes(ctx.group.status)) {
          return yield* new GroupStateConflict({ message: `This group is ${ctx.group.status}; it takes no members` })
        }
        // A private group, or one whose type says `join: approval`, waits for an organiser.
        const { join } = yield* policies.of(ctx.group.type_id)
        const status: GroupMemberStatus = ctx.group.visibility === "public" && join === "open" ? "active" : "pending"
        const row = yield* db.transaction(Effect.gen(function*() {
          if (status === "active") yield* policies.takeSeat(ctx.group.id)
          const inserted = yield* repo.insert(ctx.group.id, member.userId, "member", status)
          if (Option.isNone(inserted)) {
            // Another request of the same member got there first.
            const existing = yield* repo.find(ctx.group.id, member.userId)
            return yield* Option.match(existing, {
              onNone: () => Effect.fail(membershipNotFound()),
              onSome: refuseExisting
            })
          }
          if (status === "active") yield* outbox.append(joinedEvent(ctx.group, inserted.value, null))
          return inserted.value
        }))
        return yield* views.membership(row)
      },
      requireCommunityMember("join groups")
    )

    const leave = Effect.fn("GroupMembers.leave")(function*(id: GroupId) {
      const ctx = yield* access.visible(id)
      const mine = yield* Option.match(ctx.membership, {
        onNone: () => Effect.fail(new NotFound({ message: "You are not a member of this group" })),
        onSome: Effect.succeed
      })
      if (mine.status === "banned") return yield* new Forbidden({ message: "You are banned from this group" })
      if (mine.role === "owner") {
        return yield* new GroupStateConflict({
          message: "The owner cannot leave; hand the group over to another member first"
        })
      }
      yield* db.transaction(Effect.gen(function*() {
        const removed = yield* repo.removeUnlessOwnerOrBanned(ctx.group.id, mine.user_id)
        if (Option.isNone(removed)) return yield* new NotFound({ message: "You are not a member of this group" })
        if (removed.value.status === "active") yield* outbox.append(leftEvent(ctx.group, mine.user_id, "left", null))
      }))
      return { group_id: ctx.group.id, user_id: mine.user_id as UserId, left: true as const } satisfies GroupLeft
    })

    const list = Effect.fn("GroupMembers.list")(function*(id: GroupId, params: ListGroupMembersParams) {
      const ctx = yield* access.visible(id)
      if (!canReadMembers(ctx)) {
        return yield* new Forbidden({ message: "Only members of this private group see its members" })
      }
      const everyStatus = canManage(ctx)
      if (params.status !== undefined && params.status !== "active" && !everyStatus) {
        return yield* new Forbidden({ message: "Only the group's organisers see pending and banned memberships" })
      }
      const perPage = params.per_page ?? GROUP_MEMBERS_PER_PAGE_DEFAULT
      const rows = yield* repo.list({
        groupId: ctx.group.id,
        status: params.status ?? (everyStatus ? undefined : "active"),
        after: params.cursor,
        limit: perPage + 1
      })
      const page = cursorPage(rows, perPage, (last) => encodeCursor(last.user_id))
      return { data: yield* views.memberships(page.data), meta: page.meta }
    })

    /** Owners and admins run the organisers; organisers run the members. */
    const mayChange = (manager: GroupAccessContext, target: MemberRow, patch: UpdateGroupMember) => {
      const senior = manager.isAdmin || isOwner(manager)
      if (target.role === "organiser" && !senior) {
        return Effect.fail(new Forbidden({ message: "Only the owner or a community admin changes an organiser" }))
      }
      if (patch.role === "owner" && !senior) {
        return Effect.fail(new Forbidden({ message: "Only the owner or a community admin hands the group over" }))
      }
      return Effect.void
    }

    const applyChange = (userId: UserId, patch: UpdateGroupMember) =>
      Effect.gen(function*() {
        const ctx = yield* GroupManager
        const target = yield* Effect.flatMap(
          repo.find(ctx.group.id, userId),
          Option.match({
            onNone: () => Effect.fail(membershipNotFound()),
            onSome: Effect.succeed
          })
        )
        const role: GroupRole = patch.role ?? target.role
        const status: GroupMemberStatus = patch.status ?? target.status
        if (role === target.role && status === target.status) return yield* views.membership(target)
        if (target.role === "owner") {
          return yield* new GroupStateConflict({
            message: "The owner's membership does not change; hand the group over to another member first"
          })
        }
        yield* mayChange(ctx, target, patch)
        // Approving (or making active otherwise) takes a seat: 409 `GROUP_FULL` past the type's `max_members`.
        const seat = target.status !== "active" && status === "active" ? policies.takeSeat(ctx.group.id) : Effect.void
        if (role === "owner") {
          if (status !== "active") {
            return yield* new GroupStateConflict({ message: "Only an active member can become the owner" })
          }
          return yield* views.membership(yield* db.transaction(Effect.zipRight(seat, transfer.handOver(ctx, target))))
        }
        const updated = yield* db.transaction(Effect.gen(function*() {
          yield* seat
          const updated = yield* Effect.flatMap(
            repo.update(ctx.group.id, userId, { role, status }),
            Option.match({ onNone: () => Effect.fail(membershipNotFound()), onSome: Effect.succeed })
          )
          yield* outbox.appendAll(statusEvent(ctx, target, updated, ctx.actor.userId))
          return updated
        }))
        return yield* views.membership(updated)
      })

    const update = Effect.fn("GroupMembers.update")(
      function*(id: GroupId, userId: UserId, patch: UpdateGroupMember) {
        const ctx = yield* access.visible(id)
        return yield* requireGroupManager(ctx)(applyChange(userId, patch))
      }
    )

    return { join, leave, list, update } as const
  })
}) {}
