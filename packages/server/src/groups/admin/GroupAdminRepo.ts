import type { Fragment } from "@effect/sql/Statement"
import type { GroupMemberStatus, GroupRole, GroupStatus, GroupVisibility } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { likePattern } from "../../platform/SqlErrors.js"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { MemberRow } from "../GroupMemberRepo.js"
import { GroupRow } from "../GroupRepo.js"

/**
 * A group as the admin routes read it: the row the member routes read (`SELECT g.*` decoded with `GroupRow`, so
 * columns other features add to `groups` follow), with its featuring.
 */
export const AdminGroupRow = Schema.Struct({ ...GroupRow.fields, featured_at: Schema.NullOr(DbDate) })
export type AdminGroupRow = typeof AdminGroupRow.Type

const allGroups = decodeRows(AdminGroupRow)
const firstGroup = decodeFirst(AdminGroupRow)
const Count = Schema.Struct({ n: DbInt })
const StatusCount = Schema.Struct({ group_id: DbInt, status: Schema.String, n: DbInt })
const IdRow = Schema.Struct({ id: DbInt })

export interface AdminGroupQuery {
  readonly page: number
  readonly perPage: number
  readonly status?: GroupStatus | undefined
  readonly typeId?: number | undefined
  readonly visibility?: GroupVisibility | undefined
  readonly featured?: boolean | undefined
  readonly search?: string | undefined
  readonly ownerId?: number | undefined
}

export interface AdminMemberQuery {
  readonly groupId: number
  readonly page: number
  readonly perPage: number
  readonly status?: GroupMemberStatus | undefined
  readonly role?: GroupRole | undefined
}

export interface GroupMemberCounts {
  readonly active: number
  readonly pending: number
  readonly banned: number
}

const NO_MEMBERS: GroupMemberCounts = { active: 0, pending: 0, banned: 0 }

/** Groups of the current tenant as admins read and change them (every status; deleted groups stay gone). */
export class GroupAdminRepo extends Effect.Service<GroupAdminRepo>()("GroupAdminRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** One page of live groups matching `where`, in `order`, with the number of them all. */
    const page = (where: ReadonlyArray<Fragment>, order: Fragment, pageNo: number, perPage: number) =>
      db.query((tenantId) => {
        const conditions = sql.and([sql`g.tenant_id = ${tenantId}`, sql`g.deleted_at IS NULL`, ...where])
        return Effect.all({
          rows: sql`SELECT g.* FROM groups g WHERE ${conditions}
                    ORDER BY ${order} LIMIT ${perPage} OFFSET ${(pageNo - 1) * perPage}`.pipe(allGroups),
          total: sql`SELECT count(*)::int AS n FROM groups g WHERE ${conditions}`.pipe(
            decodeSingle(Count),
            Effect.map((r) => r.n)
          )
        }, { concurrency: 2 })
      })

    return {
      /** Newest first; filters on indexes `groups_status`, `groups_type`, `groups_owner`, `groups_featured`. */
      list: (q: AdminGroupQuery) => {
        const where: Array<Fragment> = []
        if (q.status !== undefined) where.push(sql`g.status = ${q.status}`)
        if (q.typeId !== undefined) where.push(sql`g.type_id = ${q.typeId}`)
        if (q.visibility !== undefined) where.push(sql`g.visibility = ${q.visibility}`)
        if (q.ownerId !== undefined) where.push(sql`g.owner_id = ${q.ownerId}`)
        if (q.featured !== undefined) {
          where.push(q.featured ? sql`g.featured_at IS NOT NULL` : sql`g.featured_at IS NULL`)
        }
        if (q.search !== undefined && q.search !== "") {
          const pattern = likePattern(q.search)
          where.push(sql`(g.name ILIKE ${pattern} OR g.description ILIKE ${pattern})`)
        }
        return page(where, sql`g.id DESC`, q.page, q.perPage)
      },

      /** Groups waiting for review, oldest first. */
      pending: (pageNo: number, perPage: number) =>
        page([sql`g.status = 'pending_review'`], sql`g.id`, pageNo, perPage),

      /** Featured groups in featured order. */
      featured: (pageNo: number, perPage: number) =>
        page([sql`g.featured_at IS NOT NULL`], sql`g.featured_at, g.id`, pageNo, perPage),

      find: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT g.* FROM groups g
              WHERE g.tenant_id = ${tenantId} AND g.id = ${id} AND g.deleted_at IS NULL`.pipe(firstGroup)
        ),

      /** The live groups among `ids`, in the order of `ids` (missing ones left out). */
      findMany: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<AdminGroupRow>>([])
          : db.query((tenantId) =>
            sql`SELECT g.* FROM groups g
                WHERE g.tenant_id = ${tenantId} AND g.id = ANY(${pgArray(ids)}::bigint[]) AND g.deleted_at IS NULL`
              .pipe(
                allGroups,
                Effect.map((rows) => {
                  const byId = new Map(rows.map((r) => [r.id as number, r] as const))
                  return ids.flatMap((id) => byId.get(id) ?? [])
                })
              )
          ),

      /** Memberships by status per group of a page, in one grouped query (index `group_members_group`). */
      memberCounts: (groupIds: ReadonlyArray<number>) =>
        groupIds.length === 0
          ? Effect.succeed(new Map<number, GroupMemberCounts>())
          : db.query((tenantId) =>
            sql`SELECT group_id, status, count(*)::int AS n FROM group_members
                WHERE tenant_id = ${tenantId} AND group_id = ANY(${pgArray(groupIds)}::bigint[])
                GROUP BY group_id, status`.pipe(
              decodeRows(StatusCount),
              Effect.map((rows) => {
                const counts = new Map<number, GroupMemberCounts>()
                for (const r of rows) {
                  const was = counts.get(r.group_id) ?? NO_MEMBERS
                  counts.set(r.group_id, { ...was, [r.status]: r.n })
                }
                return counts
              })
            )
          ),

      /** A page of a group's memberships in member id order. */
      members: (q: AdminMemberQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`group_id = ${q.groupId}`]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.role !== undefined) conditions.push(sql`role = ${q.role}`)
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT group_id, user_id, role, status, joined_at FROM group_members WHERE ${where}
                      ORDER BY user_id LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(
              decodeRows(MemberRow)
            ),
            total: sql`SELECT count(*)::int AS n FROM group_members WHERE ${where}`.pipe(
              decodeSingle(Count),
              Effect.map((r) => r.n)
            )
          }, { concurrency: 2 })
        }),

      /**
       * Moves the group to `to` if its status is one of `from` (the check and the change in one statement, so two
       * admins deciding at once cannot both succeed); none otherwise.
       */
      setStatus: (id: number, from: ReadonlyArray<GroupStatus>, to: GroupStatus) =>
        db.query((tenantId) =>
          sql`UPDATE groups g SET status = ${to}, updated_at = now()
              WHERE g.tenant_id = ${tenantId} AND g.id = ${id} AND g.deleted_at IS NULL
                AND g.status = ANY(${pgArray(from)}::text[])
              RETURNING g.*`.pipe(firstGroup)
        ),

      /** Unfeatures a featured group, or features (last) an active one; none when neither applies. */
      toggleFeatured: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE groups g
              SET featured_at = CASE WHEN g.featured_at IS NULL THEN clock_timestamp() ELSE NULL END
              WHERE g.tenant_id = ${tenantId} AND g.id = ${id} AND g.deleted_at IS NULL
                AND (g.featured_at IS NOT NULL OR g.status = 'active')
              RETURNING g.*`.pipe(firstGroup)
        ),

      /** Which of `ids` are active live groups of this community. */
      activeAmong: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlySet<number>>(new Set())
          : db.query((tenantId) =>
            sql`SELECT id FROM groups
                WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[])
                  AND deleted_at IS NULL AND status = 'active'`.pipe(
              decodeRows(IdRow),
              Effect.map((rows): ReadonlySet<number> => new Set(rows.map((r) => r.id)))
            )
          ),

      /**
       * Exactly `ids` are featured afterwards, in that order (each a millisecond after the one before); the others
       * stop being featured. Call inside a transaction.
       */
      replaceFeatured: (ids: ReadonlyArray<number>) =>
        db.query((tenantId) =>
          Effect.zipRight(
            sql`UPDATE groups SET featured_at = NULL
                WHERE tenant_id = ${tenantId} AND featured_at IS NOT NULL
                  AND NOT (id = ANY(${pgArray(ids)}::bigint[]))`,
            sql`UPDATE groups g SET featured_at = now() + (o.ord * interval '1 millisecond')
                FROM unnest(${pgArray(ids)}::bigint[]) WITH ORDINALITY AS o(id, ord)
                WHERE g.tenant_id = ${tenantId} AND g.id = o.id AND g.deleted_at IS NULL`
          )
        )
    } as const
  })
}) {}
