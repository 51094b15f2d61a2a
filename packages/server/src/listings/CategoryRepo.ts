import { Category, type CategoryId, type CategorySummary, type CategoryType } from "@timebank/domain"
import { Effect, Option } from "effect"
import { isUniqueViolation } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `categories`. */
export interface CategoryRow {
  readonly id: string
  readonly tenant_id: string
  readonly type: CategoryType
  readonly name: string
  readonly slug: string
  readonly color: string | null
}

export const toCategory = (row: CategoryRow): Category =>
  Category.make({
    id: Number(row.id) as CategoryId,
    name: row.name,
    slug: row.slug,
    type: row.type,
    color: row.color
  })

export const toCategorySummary = (row: Pick<CategoryRow, "id" | "name" | "slug">): CategorySummary => ({
  id: Number(row.id) as CategoryId,
  name: row.name,
  slug: row.slug
})

export interface CategoryFields {
  readonly name: string
  readonly slug: string
  readonly type: CategoryType
  readonly color: string | null
}

/** What a write found: the row, or a name or slug that another category of the same type has meanwhile. */
export type CategoryWrite =
  | { readonly _tag: "Written"; readonly row: CategoryRow }
  | { readonly _tag: "Taken" }
  | { readonly _tag: "NotFound" }

/** Categories of the current tenant. */
export class CategoryRepo extends Effect.Service<CategoryRepo>()("CategoryRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const first = (rows: ReadonlyArray<CategoryRow>) => Option.fromNullable(rows[0])
    const written = (rows: ReadonlyArray<CategoryRow>): CategoryWrite =>
      rows[0] === undefined ? { _tag: "NotFound" } : { _tag: "Written", row: rows[0] }

    return {
      /** By name (case-insensitive), then id; uses `categories_tenant_type_name`. */
      list: (type: CategoryType | undefined) =>
        db.query((tenantId) =>
          type === undefined
            ? sql<CategoryRow>`SELECT * FROM categories WHERE tenant_id = ${tenantId}
                ORDER BY lower(name), id`
            : sql<CategoryRow>`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND type = ${type}
                ORDER BY lower(name), id`
        ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql<CategoryRow>`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map(first)
          )
        ),

      /** By slug within one type (`categories_tenant_type_slug`); events name their category this way. */
      findBySlug: (type: CategoryType, slug: string) =>
        db.query((tenantId) =>
          sql<CategoryRow>`SELECT * FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND slug = ${slug}`.pipe(Effect.map(first))
        ),

      /** One query for a whole page of listings. */
      byIds: (ids: ReadonlyArray<number>) => {
        const unique = [...new Set(ids)]
        return unique.length === 0
          ? Effect.succeed(new Map<number, CategoryRow>())
          : db.query((tenantId) =>
            sql<CategoryRow>`SELECT * FROM categories WHERE tenant_id = ${tenantId} AND id IN ${sql.in(unique)}`.pipe(
              Effect.map((rows) => new Map(rows.map((r) => [Number(r.id), r])))
            )
          )
      },

      /** Whether another category of `type` has this name in any case (`except` is the one being renamed). */
      nameTaken: (type: CategoryType, name: string, except?: number) =>
        db.query((tenantId) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND lower(name) = lower(${name})
              AND id <> ${except ?? 0}`.pipe(Effect.map((rows) => (rows[0]?.n ?? 0) > 0))
        ),

      /** Slugs of `type` that are `base` or `base-<something>` (the candidates a new slug must avoid). */
      slugsLike: (type: CategoryType, base: string, except?: number) =>
        db.query((tenantId) =>
          // Slugs hold only [a-z0-9-], so `base` needs no LIKE escaping.
          sql<{ slug: string }>`SELECT slug FROM categories
            WHERE tenant_id = ${tenantId} AND type = ${type} AND (slug = ${base} OR slug LIKE ${`${base}-%`})
              AND id <> ${except ?? 0}`.pipe(Effect.map((rows) => new Set(rows.map((r) => r.slug))))
        ),

      /** None when the name or slug is taken (another admin, same moment). */
      insert: (fields: CategoryFields) =>
        db.query((tenantId) =>
          sql<CategoryRow>`
            INSERT INTO categories (tenant_id, type, name, slug, color)
            VALUES (${tenantId}, ${fields.type}, ${fields.name}, ${fields.slug}, ${fields.color})
            ON CONFLICT DO NOTHING
            RETURNING *`.pipe(Effect.map(first))
        ),

      update: (id: number, fields: CategoryFields) =>
        db.query((tenantId) =>
          sql<CategoryRow>`
            UPDATE categories SET name = ${fields.name}, slug = ${fields.slug}, type = ${fields.type},
                                  color = ${fields.color}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(
            Effect.map(written),
            Effect.catchIf(isUniqueViolation, (): Effect.Effect<CategoryWrite> => Effect.succeed({ _tag: "Taken" }))
          )
        ),

      delete: (id: number) =>
        db.query((tenantId) =>
          sql<CategoryRow>`DELETE FROM categories WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`.pipe(
            Effect.map(first)
          )
        )
    } as const
  })
}) {}
