import { Schema } from "effect"
import { PathId, RecordId } from "../http/Ids.js"
import { isCategoryColor } from "./CssColor.js"

export const CategoryId = RecordId.pipe(Schema.brand("CategoryId"))
export type CategoryId = typeof CategoryId.Type

/** What a category classifies (decisions D6); listings use `listing` categories only. */
export const CategoryType = Schema.Literal("listing", "event", "blog", "vol_opportunity")
export type CategoryType = typeof CategoryType.Type

export const CategoryName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))

/** Decisions D6: a hex colour (`#rgb`, `#rrggbb`) or a CSS named colour such as `blue`, in any case. */
export const CategoryColor = Schema.Trim.pipe(
  Schema.filter(isCategoryColor, {
    message: () => "must be a hex colour such as #1e88e5 or a CSS colour name such as blue"
  })
).annotations({
  description: "`#rgb`, `#rrggbb` or a CSS Color Level 4 named colour (`blue`, `RebeccaPurple`), in any case; " +
    "stored lowercase"
})

/** `{"id", "name", "slug", "type", "color"}` (decisions D6). */
export class Category extends Schema.Class<Category>("Category")({
  id: CategoryId,
  name: Schema.String,
  slug: Schema.String.annotations({
    description: "Made from the name (lowercase ASCII letters, digits, hyphens); unique per community and type"
  }),
  type: CategoryType,
  color: Schema.NullOr(Schema.String).annotations({
    description: "Hex colour (`#1e88e5`) or CSS colour name (`blue`), lowercase; or null"
  })
}) {}

/** The category as a listing shows it. */
export const CategorySummary = Schema.Struct({ id: CategoryId, name: Schema.String, slug: Schema.String })
export type CategorySummary = typeof CategorySummary.Type

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const CreateCategory = Schema.Struct({
  name: CategoryName,
  type: exact(CategoryType).annotations({ description: "Default `listing`" }),
  color: exact(Schema.NullOr(CategoryColor))
})
export type CreateCategory = typeof CreateCategory.Type

export const UpdateCategory = Schema.Struct({
  name: exact(CategoryName),
  type: exact(CategoryType),
  color: exact(Schema.NullOr(CategoryColor))
})
export type UpdateCategory = typeof UpdateCategory.Type

export const CategoryListParams = Schema.Struct({
  type: Schema.optional(CategoryType).annotations({ description: "Only categories of this kind" })
})

export const CategoryIdPath = Schema.Struct({ id: PathId(CategoryId) })

export const CategoryDeleted = Schema.Struct({
  id: CategoryId,
  deleted: Schema.Literal(true),
  unassigned_listings: Schema.Int.annotations({ description: "How many listings lost this category" })
})
export type CategoryDeleted = typeof CategoryDeleted.Type
