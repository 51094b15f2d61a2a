import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const CategoryOfListing = Schema.Struct({ id: DbInt, category: Schema.NullOr(Schema.String) })

/** What funder reports read of listings (decisions D17 "Funder reports"): the category names of listings. */
export class ListingReports extends Effect.Service<ListingReports>()("ListingReports", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /**
     * The category name of each listing, one query (deleted listings too: exchanges keep naming them); a listing
     * without a category maps to `null`, unknown ids are absent.
     */
    const categoryNames = (
      listingIds: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, string | null>, never, CurrentTenant> =>
      listingIds.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT l.id, c.name AS category FROM listings l
              LEFT JOIN categories c ON c.id = l.category_id AND c.tenant_id = l.tenant_id
              WHERE l.tenant_id = ${tenantId} AND l.id = ANY(${pgArray(listingIds)}::bigint[])`.pipe(
            decodeRows(CategoryOfListing),
            Effect.map((rows) => new Map(rows.map((r) => [r.id, r.category])))
          )
        )

    return { categoryNames } as const
  })
}) {}
