import { type AttributeId, type AttributeType, ListingAttribute } from "@timebank/domain"
import { Effect, Option } from "effect"
import { isUniqueViolation } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { AttributeDefinition } from "./AttributeValues.js"

/** A row of `listing_attributes`. */
export interface AttributeRow {
  readonly id: string
  readonly tenant_id: string
  readonly name: string
  readonly type: AttributeType
  readonly options: ReadonlyArray<string>
  readonly required: boolean
}

export const toAttribute = (row: AttributeRow): ListingAttribute =>
  ListingAttribute.make({
    id: Number(row.id) as AttributeId,
    name: row.name,
    type: row.type,
    options: row.options,
    required: row.required
  })

export const toDefinition = (row: AttributeRow): AttributeDefinition => ({
  id: Number(row.id),
  name: row.name,
  type: row.type,
  options: row.options,
  required: row.required
})

export interface AttributeFields {
  readonly name: string
  readonly type: AttributeType
  readonly options: ReadonlyArray<string>
  readonly required: boolean
}

/** The written row, or a name another attribute of the tenant has (in any case). */
export type AttributeWrite =
  | { readonly _tag: "Written"; readonly row: AttributeRow }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "NotFound" }

/** Listing attribute definitions of the current tenant. */
export class AttributeRepo extends Effect.Service<AttributeRepo>()("AttributeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const written = (rows: ReadonlyArray<AttributeRow>): AttributeWrite =>
      rows[0] === undefined ? { _tag: "NotFound" } : { _tag: "Written", row: rows[0] }
    const taken = (): Effect.Effect<AttributeWrite> => Effect.succeed({ _tag: "Taken" })

    return {
      /** By name (case-insensitive); uses `listing_attributes_tenant_name`. */
      list: db.query((tenantId) =>
        sql<AttributeRow>`SELECT * FROM listing_attributes WHERE tenant_id = ${tenantId} ORDER BY lower(name), id`
      ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql<AttributeRow>`SELECT * FROM listing_attributes WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]))
          )
        ),

      /** None when another attribute of the tenant has the name. */
      insert: (fields: AttributeFields) =>
        db.query((tenantId) =>
          sql<AttributeRow>`
            INSERT INTO listing_attributes (tenant_id, name, type, options, required)
            VALUES (${tenantId}, ${fields.name}, ${fields.type}, ${JSON.stringify(fields.options)}::jsonb,
                    ${fields.required})
            ON CONFLICT DO NOTHING
            RETURNING *`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
        ),

      update: (id: number, fields: AttributeFields) =>
        db.query((tenantId) =>
          sql<AttributeRow>`
            UPDATE listing_attributes SET name = ${fields.name}, type = ${fields.type},
                   options = ${JSON.stringify(fields.options)}::jsonb, required = ${fields.required}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(Effect.map(written), Effect.catchIf(isUniqueViolation, taken))
        ),

      delete: (id: number) =>
        db.query((tenantId) =>
          sql<AttributeRow>`DELETE FROM listing_attributes WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`
            .pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
        )
    } as const
  })
}) {}
