import { GroupTypeId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `group_types`. */
export const GroupTypeRow = Schema.Struct({
  id: dbId(GroupTypeId),
  name: Schema.String,
  description: Schema.String,
  created_at: DbDate,
  updated_at: DbDate
})
export type GroupTypeRow = typeof GroupTypeRow.Type

const NameRow = Schema.Struct({ id: dbId(GroupTypeId), name: Schema.String })

const COLUMNS = "id, name, description, created_at, updated_at"

/** The group types of the current tenant. */
export class GroupTypeRepo extends Effect.Service<GroupTypeRepo>()("GroupTypeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM group_types WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            decodeFirst(GroupTypeRow)
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
      insert: (name: string, description: string) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO group_types ${sql.insert({ tenant_id: tenantId, name, description })}
            ON CONFLICT DO NOTHING
            RETURNING ${columns}`.pipe(decodeFirst(GroupTypeRow))
        )
    } as const
  })
}) {}
