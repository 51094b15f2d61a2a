import { Listing, type UserId, type UserSummary } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { CategoryRepo, toCategorySummary } from "./CategoryRepo.js"
import type { ListingRow } from "./ListingRepo.js"

/** Shown for an owner the users table no longer answers for (it keeps erased users, so this should not happen). */
const unknownOwner = (id: UserId): UserSummary => ({
  id,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

/**
 * Turns listing rows into the API's view with their owners and categories: one query per relation for the whole
 * page (owners, then categories, side by side), never one per listing.
 */
export class ListingViews extends Effect.Service<ListingViews>()("ListingViews", {
  dependencies: [UserSummaries.Default, CategoryRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const categories = yield* CategoryRepo

    const many = (rows: ReadonlyArray<ListingRow>) =>
      Effect.gen(function*() {
        const { owners, cats } = yield* Effect.all({
          owners: users.byIds(rows.map((r) => r.user_id)),
          cats: categories.byIds(rows.flatMap((r) => (r.category_id === null ? [] : [r.category_id])))
        }, { concurrency: 2 })
        return rows.map((row) => {
          const category = row.category_id === null ? undefined : cats.get(row.category_id)
          return Listing.make({
            id: row.id,
            type: row.type,
            title: row.title,
            description: row.description,
            status: row.status,
            hours_estimate: row.hours_estimate,
            location: row.location,
            category_id: category === undefined ? null : category.id,
            category: category === undefined ? null : toCategorySummary(category),
            attributes: row.attributes,
            user_id: row.user_id,
            user: owners.get(row.user_id) ?? unknownOwner(row.user_id),
            created_at: DateTime.unsafeFromDate(row.created_at),
            updated_at: DateTime.unsafeFromDate(row.updated_at)
          })
        })
      }).pipe(Effect.withSpan("ListingViews.many", { attributes: { count: rows.length } }))

    return {
      many,
      one: (row: ListingRow) => Effect.map(many([row]), (views) => views[0]!)
    } as const
  })
}) {}
