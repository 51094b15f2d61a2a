import { GroupId, GroupStatus, GroupTypeId, GroupVisibility, LISTED_GROUP_STATUSES, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { definedOnly, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `groups` (live ones: the repo never hands out deleted rows). */
export const GroupRow = Schema.Struct({
  id: dbId(GroupId),
  owner_id: dbId(UserId),
  type_id: Schema.NullOr(dbId(GroupTypeId)),
  name: Schema.String,
  description: Schema.String,
  visibility: GroupVisibility,
  location: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  status: GroupStatus,
  created_at: DbDate,
  updated_at: DbDate
})
export type GroupRow = typeof GroupRow.Type

const firstGroup = decodeFirst(GroupRow)
const allGroups = decodeRows(GroupRow)

export interface GroupListQuery {
  /** Whose memberships make a group that waits for review (or was rejected) visible. */
  readonly viewerId: number
  /** Admins: every status. */
  readonly everyStatus: boolean
  readonly typeId?: number | undefined
  readonly search?: string | undefined
  /** Only groups older than this id (the cursor). */
  readonly before?: number | undefined
  /** Rows to fetch: one more than the page, to know whether there is more. */
  readonly limit: number
}

export interface GroupInsert {
  readonly ownerId: number
  readonly typeId: number | null
  readonly name: string
  readonly description: string
  readonly visibility: GroupVisibility
  readonly location: string | null
  readonly status: GroupStatus
}

/** Columns an edit may set; `undefined` leaves a column as it is. */
export interface GroupPatch {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly type_id?: number | null | undefined
  readonly visibility?: GroupVisibility | undefined
  readonly location?: string | null | undefined
  readonly status?: GroupStatus | undefined
  readonly owner_id?: number | undefined
}

const COLUMNS =
  "id, owner_id, type_id, name, description, visibility, location, latitude, longitude, status, created_at, updated_at"

/**
 * Groups of the current tenant. Deleted groups (`deleted_at` set) are gone for every method here: the rows stay
 * for the memberships, messages and feed posts that name them.
 */
export class GroupRepo extends Effect.Service<GroupRepo>()("GroupRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)
    const listColumns = sql.literal(COLUMNS.split(", ").map((c) => `g.${c}`).join(", "))

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM groups
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(firstGroup)
        ),

      /** The group, its row locked until the transaction ends (hand-overs). Call inside a transaction. */
      lock: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM groups
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL FOR UPDATE`.pipe(firstGroup)
        ),

      /**
       * A page of groups, newest first (index `groups_list`, or `groups_type` with a type): the listed statuses,
       * plus those the viewer is an active member of (the primary key of `group_members`); admins every status.
       */
      list: (q: GroupListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`g.tenant_id = ${tenantId}`, sql`g.deleted_at IS NULL`]
          if (q.typeId !== undefined) conditions.push(sql`g.type_id = ${q.typeId}`)
          if (q.search !== undefined && q.search !== "") {
            const pattern = likePattern(q.search)
            conditions.push(sql`(g.name ILIKE ${pattern} OR g.description ILIKE ${pattern})`)
          }
          if (q.before !== undefined) conditions.push(sql`g.id < ${q.before}`)
          if (!q.everyStatus) {
            conditions.push(sql`(g.status IN ${sql.in(LISTED_GROUP_STATUSES)} OR EXISTS (
              SELECT 1 FROM group_members m
              WHERE m.tenant_id = ${tenantId} AND m.group_id = g.id AND m.user_id = ${q.viewerId}
                AND m.status = 'active'))`)
          }
          return sql`SELECT ${listColumns} FROM groups g
            WHERE ${sql.and(conditions)} ORDER BY g.id DESC LIMIT ${q.limit}`.pipe(allGroups)
        }),

      /** Writes the group; call inside the transaction that adds its owner's membership. */
      insert: (row: GroupInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO groups ${
            sql.insert({
              tenant_id: tenantId,
              owner_id: row.ownerId,
              type_id: row.typeId,
              name: row.name,
              description: row.description,
              visibility: row.visibility,
              location: row.location,
              status: row.status
            })
          }
            RETURNING ${columns}`.pipe(
            firstGroup,
            Effect.flatten,
            Effect.orDieWith(() => new Error("INSERT INTO groups returned no row"))
          )
        ),

      /** Sets the given columns; none when the group is gone. */
      update: (id: number, patch: GroupPatch) =>
        db.query((tenantId) =>
          sql`
            UPDATE groups SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING ${columns}`.pipe(firstGroup)
        ),

      /** Marks the group deleted; none when it already was. */
      softDelete: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE groups SET deleted_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING ${columns}`.pipe(firstGroup)
        )
    } as const
  })
}) {}
