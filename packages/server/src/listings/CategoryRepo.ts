import { Category, type CategorySummary, type CategoryType } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { isUniqueViolation } from "../platform/SqlErrors.js"
import { DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `categories`, decoded straight into the API's `Category` (the one read shape of a category). */
const CategoryFromRow = Schema.compose(
  Schema.Struct({
    id: DbInt,
    name: Schema.String,
    slug: Schema.String,
    type: Schema.String,
    color: Schema.NullOr(Schema.String)
  }),
  Category
)
const firstCategory = decodeFirst(CategoryFromRow)
const allCategories = decodeRows(CategoryFromRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))
const slugs = decodeRows(Schema.Struct({ slug: Schema.String }))

export const toCategorySummary = (category: Pick<Category, "id" | "name" | "slug">): CategorySummary => ({
  id: category.id,
  name: category.name,
  slug: category.slug
})

export interface CategoryFields {
  readonly name: string
  readonly slug: string
  readonly type: CategoryType
  readonly color: string | null
}

/** What a write found: the row, or a name or slug that another category of the same type has meanwhile. */
export type CategoryWrite =
  | { readonly _tag: "Written"; readonly row: Category }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "NotFound" }

/** Categories of the current tenant. */
export class CategoryRepo extends Effect.Service<CategoryRepo>()("CategoryRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const written = (row: Option.Option<Category>): CategoryWrite =>
      Option.match(row, { onNone: () => ({ _tag: "NotFound" }), onSome: (r) => ({ _tag: "Written", row: r }) })

    return {
      /** By name (case-insensitive), then id; uses `categories_tenant_type_name`. */
      list: (type: CategoryType | undefined) =>
        db.query((tenantId) =>
          type === undefined
            ? sql`SELECT * FROM categories WHERE tenant_id = ${tenantId}
                ORDER BY lower(name), id`.pipe(allCategories)
            : sql`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND type = ${type}
                ORDER BY lower(name), id`.pipe(allCategories)
        ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            firstCategory
          )
        ),

      /** By slug within one type (`categories_tenant_type_slug`); events name their category this way. */
      findBySlug: (type: CategoryType, slug: string) =>
        db.query((tenantId) =>
          sql`SELECT * FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND slug = ${slug}`.pipe(firstCategory)
        ),

      /** One query for a whole page of listings. */
      byIds: (ids: ReadonlyArray<number>) => {
        const unique = [...new Set(ids)]
        return unique.length === 0
          ? Effect.succeed(new Map<number, Category>())
          : db.query((tenantId) =>
            sql`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND id IN ${sql.in(unique)}`.pipe(
              allCategories,
              Effect.map((rows) => new Map(rows.map((r) => [r.id, r])))
            )
          )
      },

      /** Whether another category of `type` has this name in any case (`except` is the one being renamed). */
      nameTaken: (type: CategoryType, name: string, except?: number) =>
        db.query((tenantId) =>
          sql`SELECT count(*)::int AS n FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND lower(name) = lower(${name})
              AND id <> ${except ?? 0}`.pipe(count, Effect.map((row) => row.n > 0))
        ),

      /** Slugs of `type` that are `base` or `base-<something>` (the candidates a new slug must avoid). */
      slugsLike: (type: CategoryType, base: string, except?: number) =>
        db.query((tenantId) =>
          // Slugs hold only [a-z0-9-], so `base` needs no LIKE escaping.
          sql`SELECT slug FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND (slug = ${base} OR slug LIKE ${`${base}-%`})
              AND id <> ${except ?? 0}`.pipe(slugs, Effect.map((rows) => new Set(rows.map((r) => r.slug))))
        ),

      /** None when the name or slug is taken (another admin, same moment). */
      insert: (fields: CategoryFields) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO categories (tenant_id, type, name, slug, color)
            VALUES (${tenantId}, ${fields.type}, ${fields.name}, ${fields.slug}, ${fields.color})
            ON CONFLICT DO NOTHING
            RETURNING *`.pipe(firstCategory)
        ),

      update: (id: number, fields: CategoryFields) =>
        db.query((tenantId) =>
          sql`
            UPDATE categories SET name = ${fields.name}, slug = ${fields.slug}, type = ${fields.type},
                                  color = ${fields.color}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(
            firstCategory,
            Effect.map(written),
            Effect.catchIf(isUniqueViolation, (): Effect.Effect<CategoryWrite> => Effect.succeed({ _tag: "Taken" }))
          )
        ),

      delete: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM categories WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`.pipe(
            firstCategory
          )
        )
    } as const
  })
}) {}
