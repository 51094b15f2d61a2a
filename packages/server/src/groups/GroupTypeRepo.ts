import type { SqlError } from "@effect/sql/SqlError"
import { GroupTypeId, type GroupTypePolicies, JoinPolicy, WhoCanCreate } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { isUniqueViolation } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `group_types`, its policies included (migration 0027). */
export const GroupTypeRow = Schema.Struct({
  id: dbId(GroupTypeId),
  name: Schema.String,
  description: Schema.String,
  who_can_create: WhoCanCreate,
  join_policy: JoinPolicy,
  max_members: Schema.NullOr(DbInt),
  chatroom: Schema.Boolean,
  created_at: DbDate,
  updated_at: DbDate
})
export type GroupTypeRow = typeof GroupTypeRow.Type

/** A type with the number of its live groups, and how many types the community has (admin list). */
export const GroupTypeCountRow = Schema.Struct({ ...GroupTypeRow.fields, group_count: DbInt, total: DbInt })
export type GroupTypeCountRow = typeof GroupTypeCountRow.Type

/** The policies a row holds, as the API names them. */
export const policiesOf = (row: GroupTypeRow): GroupTypePolicies => ({
  who_can_create: row.who_can_create,
  join: row.join_policy,
  max_members: row.max_members,
  chatroom: row.chatroom
})

/** Policy columns to write: only those given. */
const policyColumns = (policies: Partial<GroupTypePolicies>) => ({
  ...(policies.who_can_create === undefined ? {} : { who_can_create: policies.who_can_create }),
  ...(policies.join === undefined ? {} : { join_policy: policies.join }),
  ...(policies.max_members === undefined ? {} : { max_members: policies.max_members }),
  ...(policies.chatroom === undefined ? {} : { chatroom: policies.chatroom })
})

/** What a rename may end in: the row, a name the community has already, or no such type. */
export type GroupTypeWrite =
  | { readonly _tag: "Written"; readonly row: GroupTypeRow }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "NotFound" }

const FOREIGN_KEY_VIOLATION = "23503"

/** A row still references the one deleted (a group written with the type while it was being deleted). */
const isForeignKeyViolation = (error: SqlError) =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause &&
  error.cause.code === FOREIGN_KEY_VIOLATION

const NameRow = Schema.Struct({ id: dbId(GroupTypeId), name: Schema.String })
const CountRow = Schema.Struct({ n: DbInt })

const COLUMNS = "id, name, description, who_can_create, join_policy, max_members, chatroom, created_at, updated_at"

/** The group types of the current tenant. */
export class GroupTypeRepo extends Effect.Service<GroupTypeRepo>()("GroupTypeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)
    const typeColumns = sql.literal(COLUMNS.split(", ").map((c) => `t.${c}`).join(", "))
    const first = decodeFirst(GroupTypeRow)

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM group_types WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(first)
        ),

      /**
       * The type, kept from being deleted until the transaction ends (`FOR KEY SHARE`, what the foreign key of a new
       * group takes anyway): a group written in the same transaction cannot lose its type meanwhile.
       */
      share: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM group_types WHERE tenant_id = ${tenantId} AND id = ${id} FOR KEY SHARE`.pipe(
            first
          )
        ),

      /** Every type, by name (index `group_types_tenant_name`). */
      list: Effect.suspend(() =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM group_types WHERE tenant_id = ${tenantId} ORDER BY lower(name), id`.pipe(
            decodeRows(GroupTypeRow)
          )
        )
      ),

      /**
       * A page of types by name with their live groups counted (index `groups_type` per type) and the number of
       * types, in one statement; `total` is 0 on a page past the end (no rows to carry it).
       */
      page: (limit: number, offset: number) =>
        db.query((tenantId) =>
          sql`
            SELECT ${typeColumns},
              (SELECT count(*) FROM groups g
               WHERE g.tenant_id = t.tenant_id AND g.type_id = t.id AND g.deleted_at IS NULL)::int AS group_count,
              count(*) OVER ()::int AS total
            FROM group_types t WHERE t.tenant_id = ${tenantId}
            ORDER BY lower(t.name), t.id LIMIT ${limit} OFFSET ${offset}`.pipe(decodeRows(GroupTypeCountRow))
        ),

      /** How many types the community has. */
      count: Effect.suspend(() =>
        db.query((tenantId) =>
          sql`SELECT count(*)::int AS n FROM group_types WHERE tenant_id = ${tenantId}`.pipe(
            decodeSingle(CountRow),
            Effect.map((row) => row.n)
          )
        )
      ),

      /** Live groups (any status) of the type. */
      groupCount: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT count(*)::int AS n FROM groups
              WHERE tenant_id = ${tenantId} AND type_id = ${id} AND deleted_at IS NULL`.pipe(
            decodeSingle(CountRow),
            Effect.map((row) => row.n)
          )
        ),

      /** Names of the types of a page, keyed by id, in one query. */
      names: (ids: ReadonlyArray<number>) => {
        const unique = [...new Set(ids)]
        return unique.length === 0
          ? Effect.succeed(new Map<number, string>())
          : db.query((tenantId) =>
            sql`SELECT id, name FROM group_types
                WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(unique)}::bigint[])`.pipe(
              decodeRows(NameRow),
              Effect.map((rows) => new Map(rows.map((r) => [r.id as number, r.name] as const)))
            )
          )
      },

      /** Adds a type; none when the community has one of that name already (any case). */
      insert: (name: string, description: string, policies: Partial<GroupTypePolicies> = {}) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO group_types ${
            sql.insert({ tenant_id: tenantId, name, description, ...policyColumns(policies) })
          }
            ON CONFLICT DO NOTHING
            RETURNING ${columns}`.pipe(first)
        ),

      /** Renames or describes the type (`undefined` leaves a column). */
      update: (id: number, patch: { readonly name?: string | undefined; readonly description?: string | undefined }) =>
        db.query((tenantId) =>
          sql`
            UPDATE group_types SET ${
            sql.update({
              ...(patch.name === undefined ? {} : { name: patch.name }),
              ...(patch.description === undefined ? {} : { description: patch.description }),
              updated_at: new Date()
            })
          }
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(
            first,
            Effect.map((row): GroupTypeWrite =>
              Option.match(row, { onNone: () => ({ _tag: "NotFound" }), onSome: (r) => ({ _tag: "Written", row: r }) })
            ),
            Effect.catchIf(isUniqueViolation, (): Effect.Effect<GroupTypeWrite> => Effect.succeed({ _tag: "Taken" }))
          )
        ),

      /** Sets the policies given; none when there is no such type. */
      setPolicies: (id: number, policies: Partial<GroupTypePolicies>) =>
        db.query((tenantId) =>
          sql`
            UPDATE group_types SET ${sql.update({ ...policyColumns(policies), updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(first)
        ),

      /**
       * Deletes the type unless a live group has it: first the deleted groups let go of it (they are gone for
       * everyone), then the row goes. `InUse` when a live group has it, also one written meanwhile (the foreign key
       * refuses the delete); `NotFound` when there is no such type. Call inside a transaction.
       */
      delete: (id: number) =>
        db.query((tenantId) =>
          Effect.gen(function*() {
            yield* sql`UPDATE groups SET type_id = NULL
                       WHERE tenant_id = ${tenantId} AND type_id = ${id} AND deleted_at IS NOT NULL`
            const deleted = yield* sql`
              DELETE FROM group_types t WHERE t.tenant_id = ${tenantId} AND t.id = ${id}
                AND NOT EXISTS (SELECT 1 FROM groups g WHERE g.tenant_id = ${tenantId} AND g.type_id = t.id)
              RETURNING t.id`.pipe(decodeRows(Schema.Struct({ id: DbInt })))
            if (deleted.length > 0) return "Deleted" as const
            const exists = yield* sql`SELECT id FROM group_types WHERE tenant_id = ${tenantId} AND id = ${id}`
            return exists.length > 0 ? "InUse" as const : "NotFound" as const
          }).pipe(Effect.catchIf(isForeignKeyViolation, () => Effect.succeed("InUse" as const)))
        )
    } as const
  })
}) {}
