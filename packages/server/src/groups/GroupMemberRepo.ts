import { GroupId, GroupMemberStatus, GroupRole, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `group_members`. */
export const MemberRow = Schema.Struct({
  group_id: dbId(GroupId),
  user_id: dbId(UserId),
  role: GroupRole,
  status: GroupMemberStatus,
  joined_at: DbDate
})
export type MemberRow = typeof MemberRow.Type

const firstMember = decodeFirst(MemberRow)
const allMembers = decodeRows(MemberRow)
const counts = decodeRows(Schema.Struct({ group_id: DbInt, n: DbInt }))

export interface MemberListQuery {
  readonly groupId: number
  /** Only this status; every status when undefined. */
  readonly status?: GroupMemberStatus | undefined
  /** Only members with a greater user id (the cursor). */
  readonly after?: number | undefined
  readonly limit: number
}

/** Columns a change may set; `undefined` leaves a column as it is. */
export interface MemberPatch {
  readonly role?: GroupRole | undefined
  readonly status?: GroupMemberStatus | undefined
}

const COLUMNS = "group_id, user_id, role, status, joined_at"

/** Memberships of groups in the current tenant (one row per group and member: the primary key). */
export class GroupMemberRepo extends Effect.Service<GroupMemberRepo>()("GroupMemberRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    return {
      find: (groupId: number, userId: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM group_members
              WHERE tenant_id = ${tenantId} AND group_id = ${groupId} AND user_id = ${userId}`.pipe(firstMember)
        ),

      /** Adds the membership unless the member has one already (then none: a join that raced another). */
      insert: (groupId: number, userId: number, role: GroupRole, status: GroupMemberStatus) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO group_members ${
            sql.insert({ tenant_id: tenantId, group_id: groupId, user_id: userId, role, status })
          }
            ON CONFLICT (group_id, user_id) DO NOTHING
            RETURNING ${columns}`.pipe(firstMember)
        ),

      /** Sets role and/or status; none when the membership is gone. */
      update: (groupId: number, userId: number, patch: MemberPatch) =>
        db.query((tenantId) =>
          sql`
            UPDATE group_members SET ${
            sql.update({
              ...(patch.role === undefined ? {} : { role: patch.role }),
              ...(patch.status === undefined ? {} : { status: patch.status }),
              updated_at: new Date()
            })
          }
            WHERE tenant_id = ${tenantId} AND group_id = ${groupId} AND user_id = ${userId}
            RETURNING ${columns}`.pipe(firstMember)
        ),

      /**
       * Removes a membership that is neither the owner's nor a ban (a banned member leaving would lift their own
       * ban); none when there is no such membership.
       */
      removeUnlessOwnerOrBanned: (groupId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            DELETE FROM group_members
            WHERE tenant_id = ${tenantId} AND group_id = ${groupId} AND user_id = ${userId}
              AND role <> 'owner' AND status <> 'banned'
            RETURNING ${columns}`.pipe(firstMember)
        ),

      /**
       * A page of a group's members in user id order: with a status, index `group_members_group` (tenant, group,
       * status, user); without, the primary key (group, user).
       */
      list: (q: MemberListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`group_id = ${q.groupId}`]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.after !== undefined) conditions.push(sql`user_id > ${q.after}`)
          return sql`SELECT ${columns} FROM group_members WHERE ${sql.and(conditions)}
            ORDER BY user_id LIMIT ${q.limit}`.pipe(allMembers)
        }),

      /** Active members per group of a page, in one grouped query (index-only on `group_members_group`). */
      activeCounts: (groupIds: ReadonlyArray<number>) =>
        groupIds.length === 0
          ? Effect.succeed(new Map<number, number>())
          : db.query((tenantId) =>
            sql`
              SELECT group_id, count(*)::int AS n FROM group_members
              WHERE tenant_id = ${tenantId} AND group_id = ANY(${pgArray(groupIds)}::bigint[]) AND status = 'active'
              GROUP BY group_id`.pipe(
              counts,
              Effect.map((rows) => new Map(rows.map((r) => [r.group_id, r.n] as const)))
            )
          ),

      /** One member's memberships among the groups of a page (primary key lookups), keyed by group id. */
      membershipsOf: (userId: number, groupIds: ReadonlyArray<number>) =>
        groupIds.length === 0
          ? Effect.succeed(new Map<number, MemberRow>())
          : db.query((tenantId) =>
            sql`
              SELECT ${columns} FROM group_members
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
                AND group_id = ANY(${pgArray(groupIds)}::bigint[])`.pipe(
              allMembers,
              Effect.map((rows) => new Map(rows.map((r) => [r.group_id as number, r] as const)))
            )
          )
    } as const
  })
}) {}
