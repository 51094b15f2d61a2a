import { type AttributeType, ListingAttribute } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { isUniqueViolation } from "../platform/SqlErrors.js"
import { DbInt, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/**
 * A row of `listing_attributes`, decoded straight into the API's `ListingAttribute` (the one read shape of a
 * definition; value checks take it as their `AttributeDefinition`).
 */
const AttributeFromRow = Schema.compose(
  Schema.Struct({
    id: DbInt,
    name: Schema.String,
    type: Schema.String,
    options: Schema.Array(Schema.String),
    required: Schema.Boolean
  }),
  ListingAttribute
)
const firstAttribute = decodeFirst(AttributeFromRow)
const allAttributes = decodeRows(AttributeFromRow)

export interface AttributeFields {
  readonly name: string
  readonly type: AttributeType
  readonly options: ReadonlyArray<string>
  readonly required: boolean
}

/** The written row, or a name another attribute of the tenant has (in any case). */
export type AttributeWrite =
  | { readonly _tag: "Written"; readonly row: ListingAttribute }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "NotFound" }

/** Listing attribute definitions of the current tenant. */
export class AttributeRepo extends Effect.Service<AttributeRepo>()("AttributeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const written = (row: Option.Option<ListingAttribute>): AttributeWrite =>
      Option.match(row, { onNone: () => ({ _tag: "NotFound" }), onSome: (r) => ({ _tag: "Written", row: r }) })
    const taken = (): Effect.Effect<AttributeWrite> => Effect.succeed({ _tag: "Taken" })

    return {
      /** By name (case-insensitive); uses `listing_attributes_tenant_name`. */
      list: db.query((tenantId) =>
        sql`SELECT * FROM listing_attributes WHERE tenant_id = ${tenantId} ORDER BY lower(name), id`.pipe(
          allAttributes
        )
      ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM listing_attributes WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            firstAttribute
          )
        ),

      /** None when another attribute of the tenant has the name. */
      insert: (fields: AttributeFields) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO listing_attributes (tenant_id, name, type, options, required)
            VALUES (${tenantId}, ${fields.name}, ${fields.type}, ${JSON.stringify(fields.options)}::jsonb,
                    ${fields.required})
            ON CONFLICT DO NOTHING
            RETURNING *`.pipe(firstAttribute)
        ),

      update: (id: number, fields: AttributeFields) =>
        db.query((tenantId) =>
          sql`
            UPDATE listing_attributes SET name = ${fields.name}, type = ${fields.type},
                   options = ${JSON.stringify(fields.options)}::jsonb, required = ${fields.required}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(firstAttribute, Effect.map(written), Effect.catchIf(isUniqueViolation, taken))
        ),

      delete: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM listing_attributes WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`
            .pipe(firstAttribute)
        )
    } as const
  })
}) {}
