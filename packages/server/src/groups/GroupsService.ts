import {
  type CreateGroup,
  CurrentTenant,
  CurrentUser,
  DomainEvents,
  Forbidden,
  type GroupDeleted,
  type GroupId,
  GROUPS_PER_PAGE_DEFAULT,
  GroupStateConflict,
  type GroupStatus,
  type ListGroupsParams,
  OPEN_GROUP_STATUSES,
  type UpdateGroup
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { CommunityMember, isTenantAdmin, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { snapshotOf } from "./GroupEvents.js"
import { GroupMemberRepo } from "./GroupMemberRepo.js"
import { type GroupPatch, GroupRepo, type GroupRow } from "./GroupRepo.js"
import {
  GroupAccess,
  type GroupAccessContext,
  GroupManager,
  groupNotFound,
  isOwner,
  requireGroupManager
} from "./GroupsPolicy.js"
import { GroupViews } from "./GroupViews.js"
import { GroupPolicies } from "./types/GroupPolicies.js"

/** Blank text clears an optional field, as `null` does. */
const orNull = (text: string | null | undefined) => (text === undefined ? undefined : text === "" ? null : text)

/**
 * Who may move a group to `next`: admins to any status; the owner may archive an active or dormant group
 * (decisions D14a); nobody else changes it.
 */
const checkStatusChange = (ctx: GroupAccessContext, next: GroupStatus) => {
  if (next === ctx.group.status || ctx.isAdmin) return Effect.void
  if (next === "archived" && isOwner(ctx)) {
    return OPEN_GROUP_STATUSES.includes(ctx.group.status)
      ? Effect.void
      : Effect.fail(
        new GroupStateConflict({
          message: `Only an active or dormant group can be archived; this one is ${ctx.group.status}`
        })
      )
  }
  return Effect.fail(
    new Forbidden({ message: "Only community admins change a group's status; its owner may archive it" })
  )
}

/** The columns of `patch` whose value differs from the row's. */
const changedFields = (row: GroupRow, patch: GroupPatch): ReadonlyArray<keyof GroupPatch> =>
  (Object.keys(patch) as Array<keyof GroupPatch>).filter((key) =>
    patch[key] !== undefined && patch[key] !== row[key as keyof GroupRow]
  )

/** Groups: the list, the detail, and creating, editing and deleting them (decisions D14, D14a). */
export class GroupsService extends Effect.Service<GroupsService>()("GroupsService", {
  dependencies: [
    GroupRepo.Default,
    GroupMemberRepo.Default,
    GroupPolicies.Default,
    GroupAccess.Default,
    GroupViews.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* GroupRepo
    const members = yield* GroupMemberRepo
    const policies = yield* GroupPolicies
    const access = yield* GroupAccess
    const views = yield* GroupViews
    const outbox = yield* Outbox

    /** Five queries per page, however long: the page, then owners, counts, the caller's memberships and types. */
    const list = Effect.fn("Groups.list")(function*(params: ListGroupsParams) {
      const viewer = yield* CurrentUser
      const perPage = params.per_page ?? GROUPS_PER_PAGE_DEFAULT
      const rows = yield* repo.list({
        viewerId: viewer.userId,
        everyStatus: isTenantAdmin(viewer),
        typeId: params.type_id,
        search: params.search,
        before: params.cursor,
        limit: perPage + 1
      })
      return yield* idCursorPage(rows, perPage, (page) => views.groups(page, viewer.userId))
    })

    const get = Effect.fn("Groups.get")(function*(id: GroupId) {
      const ctx = yield* access.visible(id)
      return yield* views.group(ctx.group, ctx.actor.userId)
    })

    const create = Effect.fn("Groups.create")(
      function*(input: CreateGroup) {
        const member = yield* CommunityMember
        const tenant = yield* CurrentTenant
        // Admins review new groups; their own need no review.
        const status: GroupStatus = tenant.settings.group_approval_required && !isTenantAdmin(member)
          ? "pending_review"
          : "active"
        const row = yield* db.transaction(Effect.gen(function*() {
          // A type of this community; one only admins give groups (`who_can_create`) → 403 for others.
          yield* policies.checkType(input.type_id, isTenantAdmin(member))
          const row = yield* repo.insert({
            ownerId: member.userId,
            typeId: input.type_id ?? null,
            name: input.name,
            description: input.description,
            visibility: input.visibility,
            location: orNull(input.location) ?? null,
            status
          })
          yield* members.insert(row.id, member.userId, "owner", "active")
          yield* outbox.append(
            new DomainEvents.GroupCreated({ group_id: row.id, user_id: member.userId, group: snapshotOf(row) })
          )
          return row
        }))
        return yield* views.group(row, member.userId)
      },
      requireCommunityMember("create groups")
    )

    const applyUpdate = (patch: UpdateGroup) =>
      Effect.gen(function*() {
        const ctx = yield* GroupManager
        const row = ctx.group
        if (patch.status !== undefined) yield* checkStatusChange(ctx, patch.status)
        const changes: GroupPatch = {
          name: patch.name,
          description: patch.description,
          type_id: patch.type_id,
          visibility: patch.visibility,
          location: orNull(patch.location),
          status: patch.status
        }
        const fields = changedFields(row, changes)
        if (fields.length === 0) return yield* views.group(row, ctx.actor.userId)
        const updated = yield* db.transaction(Effect.gen(function*() {
          if (fields.includes("type_id")) yield* policies.checkType(patch.type_id, ctx.isAdmin)
          const updated = yield* Effect.flatMap(
            repo.update(row.id, Object.fromEntries(fields.map((f) => [f, changes[f]]))),
            Option.match({ onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })
          )
          yield* outbox.append(
            new DomainEvents.GroupUpdated({
              group_id: updated.id,
              fields,
              ...(fields.includes("status") ? { previous_status: row.status } : {}),
              group: snapshotOf(updated),
              updated_by: ctx.actor.userId
            })
          )
          return updated
        }))
        return yield* views.group(updated, ctx.actor.userId)
      })

    const update = Effect.fn("Groups.update")(function*(id: GroupId, patch: UpdateGroup) {
      const ctx = yield* access.visible(id)
      return yield* requireGroupManager(ctx)(applyUpdate(patch))
    })

    const softDelete = Effect.gen(function*() {
      const { actor, group } = yield* GroupManager
      yield* db.transaction(Effect.gen(function*() {
        yield* Effect.flatMap(
          repo.softDelete(group.id),
          Option.match({ onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })
        )
        yield* outbox.append(
          new DomainEvents.GroupDeleted({
            group_id: group.id,
            name: group.name,
            visibility: group.visibility,
            owner_id: group.owner_id,
            deleted_by: actor.userId
          })
        )
      }))
      return { id: group.id, deleted: true as const } satisfies GroupDeleted
    })

    const remove = Effect.fn("Groups.delete")(function*(id: GroupId) {
      const ctx = yield* access.visible(id)
      return yield* requireGroupManager(ctx)(softDelete)
    })

    return { list, get, create, update, remove } as const
  })
}) {}
