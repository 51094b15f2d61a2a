import { type CurrentTenant, ListingId, ListingType, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { dbId, DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** An active listing as matching weighs it: what it is about, where, and whose it is. */
export const ListingCandidate = Schema.Struct({
  id: dbId(ListingId),
  user_id: dbId(UserId),
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  category_id: Schema.NullOr(DbInt),
  location: Schema.NullOr(Schema.String)
})
export type ListingCandidate = typeof ListingCandidate.Type

const candidates = decodeRows(ListingCandidate)
const OwnCategory = Schema.Struct({ type: ListingType, category_id: DbInt })
const ownCategories = decodeRows(OwnCategory)

/** What matching may read of listings (decisions D17 "Matching"): one query per read, whatever the numbers. */
export class ListingCandidates extends Effect.Service<ListingCandidates>()("ListingCandidates", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Active listings of the community not owned by `userId`, newest first, at most `limit`. */
    const othersActive = (
      userId: number,
      limit: number
    ): Effect.Effect<ReadonlyArray<ListingCandidate>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT id, user_id, type, title, description, category_id, location FROM listings
            WHERE tenant_id = ${tenantId} AND status = 'active' AND deleted_at IS NULL AND user_id <> ${userId}
            ORDER BY id DESC LIMIT ${limit}`.pipe(candidates)
      )

    /** The categories of `userId`'s own active offers and requests (each pair once). */
    const categoriesOf = (
      userId: number
    ): Effect.Effect<ReadonlyArray<typeof OwnCategory.Type>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT DISTINCT type, category_id FROM listings
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND status = 'active' AND deleted_at IS NULL
              AND category_id IS NOT NULL`.pipe(ownCategories)
      )

    /** Which of `ids` are listing categories of this community. */
    const listingCategories = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlySet<number>, never, CurrentTenant> =>
      ids.length === 0 ? Effect.succeed(new Set()) : db.query((tenantId) =>
        sql`SELECT id FROM categories
            WHERE tenant_id = ${tenantId} AND type = 'listing' AND id = ANY(${pgArray(ids)}::bigint[])`.pipe(
          decodeRows(Schema.Struct({ id: DbInt })),
          Effect.map((rows) => new Set(rows.map((r) => r.id)))
        )
      )

    return { othersActive, categoriesOf, listingCategories } as const
  })
}) {}
