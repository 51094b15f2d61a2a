import type { Fragment } from "@effect/sql/Statement"
import { type CategorySummary, type CurrentTenant, ListingId, ListingType, UserId } from "@timebank/domain"
import { Effect, type Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { CategoryDirectory } from "./CategoryDirectory.js"

/** A listing as partners may see it: public fields only (no moderation status, no attributes). */
export const SharedListingRow = Schema.Struct({
  id: dbId(ListingId),
  user_id: dbId(UserId),
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  category_id: Schema.NullOr(DbInt),
  hours_estimate: Schema.NullOr(DbNumeric),
  location: Schema.NullOr(Schema.String),
  created_at: DbDate,
  updated_at: DbDate
})
export type SharedListing = typeof SharedListingRow.Type

const listings = decodeRows(SharedListingRow)
const firstListing = decodeFirst(SharedListingRow)
const SkillRow = Schema.Struct({ user_id: DbInt, name: Schema.String })

/**
 * Listings' published read for federation (decisions D13a): active listings whose owner is among `owners`, SQL of
 * the owners' ids (identity's opted-in members), so that a page is one query.
 */
export class SharedListings extends Effect.Service<SharedListings>()("SharedListings", {
  dependencies: [TenantSql.Default, CategoryDirectory.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const categories = yield* CategoryDirectory

    const columns = sql`id, user_id, type, title, description, category_id, hours_estimate, location, created_at,
                        updated_at`
    const shown = (tenantId: number, owners: Fragment) =>
      sql`tenant_id = ${tenantId} AND deleted_at IS NULL AND status = 'active' AND user_id IN (${owners})`

    /** Newest first, older than `before`; `limit` rows (index `listings_public`). */
    const page = (
      owners: Fragment,
      q: { readonly before?: number | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<SharedListing>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM listings
            WHERE ${shown(tenantId, owners)} ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(listings)
      )

    const find = (owners: Fragment, id: number): Effect.Effect<Option.Option<SharedListing>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM listings WHERE ${shown(tenantId, owners)} AND id = ${id}`.pipe(firstListing)
      )

    /** Category summaries of a page's listings, by id, in one query. */
    const categoriesOf = (
      rows: ReadonlyArray<SharedListing>
    ): Effect.Effect<ReadonlyMap<number, CategorySummary>, never, CurrentTenant> =>
      categories.summaries([...new Set(rows.flatMap((r) => (r.category_id === null ? [] : [r.category_id])))])

    /**
     * What each of `userIds` offers: the distinct category names of their active offers, alphabetically, in one
     * query for a page of members (index `listings_user`). Partners read them as the member's skills.
     */
    const offeredCategories = (
      userIds: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, ReadonlyArray<string>>, never, CurrentTenant> => {
      const unique = [...new Set(userIds)]
      return unique.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT DISTINCT l.user_id, c.name FROM listings l
              JOIN categories c ON c.id = l.category_id AND c.tenant_id = ${tenantId}
              WHERE l.tenant_id = ${tenantId} AND l.user_id = ANY(${pgArray(unique)}::bigint[])
                AND l.type = 'offer' AND l.status = 'active' AND l.deleted_at IS NULL
              ORDER BY l.user_id, c.name`.pipe(
            decodeRows(SkillRow),
            Effect.map((rows) => {
              const byUser = new Map<number, Array<string>>()
              for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.name])
              return byUser
            })
          )
        )
    }

    return { page, find, categoriesOf, offeredCategories } as const
  })
}) {}
