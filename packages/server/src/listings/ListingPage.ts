import {
  AttributeValues,
  type CurrentTenant,
  type CursorMeta,
  cursorPage,
  encodeCursor,
  type Listing,
  ListingId,
  ListingStatus,
  ListingType,
  UserId
} from "@timebank/domain"
import { Effect, Schema } from "effect"
import { ownerSummaryJoin } from "../identity/UserSummaries.js"
import { type PreparedRead, preparedRead, PreparedReads } from "../platform/PreparedReads.js"
import { likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeRows } from "../platform/SqlRows.js"
import type { ListingFilters } from "./ListingRepo.js"

/**
 * A public list row: the listing, its category's summary (null when it has none, or the category is gone) and its
 * owner's summary (null when the users table has no such user).
 */
const ListingPageRow = Schema.Struct({
  id: dbId(ListingId),
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  status: ListingStatus,
  hours_estimate: Schema.NullOr(DbNumeric),
  location: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(DbInt),
  category_name: Schema.NullOr(Schema.String),
  category_slug: Schema.NullOr(Schema.String),
  attributes: AttributeValues,
  user_id: dbId(UserId),
  owner_first_name: Schema.NullOr(Schema.String),
  owner_last_name: Schema.NullOr(Schema.String),
  owner_avatar_url: Schema.NullOr(Schema.String),
  created_at: DbDate,
  updated_at: DbDate
})
export type ListingPageRow = typeof ListingPageRow.Type

const pageRows = decodeRows(ListingPageRow)

/** Which optional filters a query shape has; each shape is a prepared statement of its own. */
interface Shape {
  readonly type: boolean
  readonly category: boolean
  readonly user: boolean
  readonly search: boolean
  readonly cursor: boolean
}

/**
 * The page query: active listings newest first (indexes `listings_public`, `listings_public_type`,
 * `listings_active_category`, `listings_user`), each with its category and owner looked up by primary key: ONE
 * round trip for a page. `$1` is the tenant; the filters the shape has follow in the order of {@link Shape}, the
 * limit last.
 */
const pageText = (shape: Shape) => {
  const conditions = ["tenant_id = $1", "deleted_at IS NULL", "status = 'active'"]
  let n = 1
  if (shape.type) conditions.push(`type = $${++n}`)
  if (shape.category) conditions.push(`category_id = $${++n}`)
  if (shape.user) conditions.push(`user_id = $${++n}`)
  if (shape.search) {
    const pattern = `$${++n}`
    conditions.push(`(title ILIKE ${pattern} OR description ILIKE ${pattern})`)
  }
  if (shape.cursor) conditions.push(`id < $${++n}`)
  return `
    SELECT l.id, l.type, l.title, l.description, l.status, l.hours_estimate, l.location,
           c.id AS category_id, c.name AS category_name, c.slug AS category_slug, l.attributes, l.user_id,
           u.first_name AS owner_first_name, u.last_name AS owner_last_name, u.avatar_url AS owner_avatar_url,
           l.created_at, l.updated_at
    FROM (
      SELECT id, type, title, description, status, hours_estimate, location, category_id, attributes, user_id,
             created_at, updated_at
      FROM listings WHERE ${conditions.join(" AND ")}
      ORDER BY id DESC LIMIT $${n + 1}
    ) l
    -- OFFSET 0 keeps each a lookup by primary key per row (the planner would otherwise hash the whole table).
    LEFT JOIN LATERAL (
      SELECT id, name, slug FROM categories WHERE tenant_id = $1 AND id = l.category_id OFFSET 0
    ) c ON true
    ${ownerSummaryJoin("l.user_id", "u")}
    ORDER BY l.id DESC`
}

const shapes = new Map<number, PreparedRead>()
const readFor = (shape: Shape): PreparedRead => {
  const key = [shape.type, shape.category, shape.user, shape.search, shape.cursor].reduce(
    (bits, on, i) => bits | (on ? 1 << i : 0),
    0
  )
  let read = shapes.get(key)
  if (read === undefined) {
    read = preparedRead(pageText(shape))
    shapes.set(key, read)
  }
  return read
}

/** A listing as it goes on the wire: the encoded form of `Listing`, keys in its order. */
export type ListingJson = typeof Listing.Encoded

/**
 * A row as the listing's JSON. The row was decoded at the repo boundary, so every field already has the type the
 * contract gives it: the item is written once here instead of being built as a class and encoded through its
 * schema again (test/listPageJson.test.ts holds the two to the same bytes).
 */
export const listingJson = (row: ListingPageRow): ListingJson => ({
  id: row.id,
  type: row.type,
  title: row.title,
  description: row.description,
  status: row.status,
  hours_estimate: row.hours_estimate,
  location: row.location,
  category_id: row.category_id,
  category: row.category_id === null || row.category_name === null || row.category_slug === null
    ? null
    : { id: row.category_id, name: row.category_name, slug: row.category_slug },
  attributes: row.attributes,
  user_id: row.user_id,
  user: row.owner_first_name === null || row.owner_last_name === null
    ? { id: row.user_id, first_name: "Deleted", last_name: "User", avatar_url: null }
    : {
      id: row.user_id,
      first_name: row.owner_first_name,
      last_name: row.owner_last_name,
      avatar_url: row.owner_avatar_url
    },
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

export interface NewestPageQuery extends ListingFilters {
  /** Only listings older than this id (the cursor). */
  readonly before?: number | undefined
  readonly perPage: number
}

/** A page of listings as it goes on the wire (`CursorPage(Listing)` encoded). */
export interface ListingsPageJson {
  readonly data: ReadonlyArray<ListingJson>
  readonly meta: CursorMeta
}

/** The public list of the current tenant, newest first, one page in one prepared statement. */
export class ListingPage extends Effect.Service<ListingPage>()("ListingPage", {
  dependencies: [PreparedReads.Default],
  effect: Effect.gen(function*() {
    const reads = yield* PreparedReads

    const newest = (q: NewestPageQuery): Effect.Effect<ListingsPageJson, never, CurrentTenant> => {
      const search = q.search === undefined || q.search === "" ? undefined : likePattern(q.search)
      const values: Array<unknown> = []
      if (q.type !== undefined) values.push(q.type)
      if (q.categoryId !== undefined) values.push(q.categoryId)
      if (q.userId !== undefined) values.push(q.userId)
      if (search !== undefined) values.push(search)
      if (q.before !== undefined) values.push(q.before)
      values.push(q.perPage + 1)
      const read = readFor({
        type: q.type !== undefined,
        category: q.categoryId !== undefined,
        user: q.userId !== undefined,
        search: search !== undefined,
        cursor: q.before !== undefined
      })
      return reads.rows(read, values).pipe(
        pageRows,
        Effect.map((rows) => {
          const { data, meta } = cursorPage(rows, q.perPage, (last) => encodeCursor(last.id))
          return { data: data.map(listingJson), meta }
        }),
        Effect.withSpan("ListingPage.newest", { captureStackTrace: false })
      )
    }

    return { newest } as const
  })
}) {}
