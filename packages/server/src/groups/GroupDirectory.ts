import type { Fragment } from "@effect/sql/Statement"
import type { CurrentTenant } from "@timebank/domain"
import { GroupStatus, GroupVisibility, LISTED_GROUP_STATUSES } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { GroupMemberRepo } from "./GroupMemberRepo.js"
import { GroupRepo } from "./GroupRepo.js"

/** A group as other features see it (the feed posts in it; notifications name it). */
export interface GroupSummary {
  readonly id: number
  readonly name: string
  readonly visibility: "public" | "private"
  readonly status: "pending_review" | "active" | "dormant" | "archived" | "rejected"
}

/** A member's place in a group. */
export interface GroupMembership {
  readonly role: "owner" | "organiser" | "member"
  readonly status: "pending" | "active" | "banned"
}

const UserIdRow = Schema.Struct({ user_id: DbInt })

/** A group as moderation's queue shows it (decisions D17 "Groups admin", `GET /admin/groups/moderation`). */
export const GroupReviewSummary = Schema.Struct({
  id: DbInt,
  name: Schema.String,
  visibility: GroupVisibility,
  status: GroupStatus,
  owner_id: DbInt,
  created_at: DbDate
})
export type GroupReviewSummary = typeof GroupReviewSummary.Type

/** What other features may read of groups: domain shapes, never rows. */
export class GroupDirectory extends Effect.Service<GroupDirectory>()("GroupDirectory", {
  dependencies: [TenantSql.Default, GroupRepo.Default, GroupMemberRepo.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const groupRows = yield* GroupRepo
    const memberRows = yield* GroupMemberRepo

    /** The group of this community with that id, unless deleted. */
    const find = (groupId: number): Effect.Effect<Option.Option<GroupSummary>, never, CurrentTenant> =>
      Effect.map(
        groupRows.findById(groupId),
        Option.map((g): GroupSummary => ({ id: g.id, name: g.name, visibility: g.visibility, status: g.status }))
      )

    /** The member's membership of the group, if they have one (pending and banned included). */
    const membership = (
      groupId: number,
      userId: number
    ): Effect.Effect<Option.Option<GroupMembership>, never, CurrentTenant> =>
      Effect.map(
        memberRows.find(groupId, userId),
        Option.map((m): GroupMembership => ({ role: m.role, status: m.status }))
      )

    /** Whether the member is an active member of the group. */
    const isActiveMember = (groupId: number, userId: number): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.map(membership(groupId, userId), Option.exists((m) => m.status === "active"))

    /** Whether the member is an active organiser (the owner included) of the group. */
    const isOrganiser = (groupId: number, userId: number): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.map(
        membership(groupId, userId),
        Option.exists((m) => m.status === "active" && (m.role === "owner" || m.role === "organiser"))
      )

    /** Active members of the group, organisers only if asked (notifications: who hears of a join or a message). */
    const activeMemberIds = (
      groupId: number,
      options: { readonly organisersOnly?: boolean } = {}
    ): Effect.Effect<ReadonlyArray<number>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT user_id FROM group_members
            WHERE tenant_id = ${tenantId} AND group_id = ${groupId} AND status = 'active'
              ${options.organisersOnly === true ? sql`AND role IN ('owner', 'organiser')` : sql``}
            ORDER BY user_id`.pipe(decodeRows(UserIdRow), Effect.map((rows) => rows.map((r) => r.user_id)))
      )

    /**
     * SQL for `IN (...)`: the ids of the groups (not deleted) the member is an active member of. The feed's home
     * page reads its posts of those groups in the same query as the rest of the page.
     */
    const activeGroupIdsOf = (userId: number): Effect.Effect<Fragment, never, CurrentTenant> =>
      Effect.map(db.tenantId, (tenantId) =>
        sql`SELECT gm.group_id FROM group_members gm
            JOIN groups g ON g.id = gm.group_id AND g.tenant_id = ${tenantId} AND g.deleted_at IS NULL
            WHERE gm.tenant_id = ${tenantId} AND gm.user_id = ${userId} AND gm.status = 'active'`)

    /**
     * Whether a member (`isAdmin`: a community admin) can see the group, as `GET /groups/{id}` decides: a listed
     * group, or one waiting for review or rejected for its active members and admins (moderation: what one reports).
     */
    const visibleTo = (
      groupId: number,
      viewer: { readonly userId: number; readonly isAdmin: boolean }
    ): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.flatMap(find(groupId), (group) =>
        Option.isNone(group)
          ? Effect.succeed(false)
          : LISTED_GROUP_STATUSES.includes(group.value.status) || viewer.isAdmin
          ? Effect.succeed(true)
          : isActiveMember(groupId, viewer.userId))

    /** Moderation's queue: the groups (not deleted) among `ids` and every group waiting for review; one query. */
    const forModeration = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyArray<GroupReviewSummary>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT id, name, visibility, status, owner_id, created_at FROM groups
            WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
              AND (status = 'pending_review' OR id = ANY(${pgArray(ids)}::bigint[]))`.pipe(
          decodeRows(GroupReviewSummary)
        )
      )

    return {
      find,
      membership,
      isActiveMember,
      isOrganiser,
      activeMemberIds,
      activeGroupIdsOf,
      visibleTo,
      forModeration
    } as const
  })
}) {}
