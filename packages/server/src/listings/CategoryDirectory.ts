import type { Category, CategorySummary, CategoryType, CurrentTenant } from "@timebank/domain"
import { Effect, type Option } from "effect"
import { CategoryRepo, toCategorySummary } from "./CategoryRepo.js"

/** Listings' categories for other features (events name and show theirs): domain shapes, never rows. */
export class CategoryDirectory extends Effect.Service<CategoryDirectory>()("CategoryDirectory", {
  dependencies: [CategoryRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* CategoryRepo

    const findById = (id: number): Effect.Effect<Option.Option<Category>, never, CurrentTenant> => repo.findById(id)

    /** By slug within one type; events name their category this way. */
    const findBySlug = (
      type: CategoryType,
      slug: string
    ): Effect.Effect<Option.Option<Category>, never, CurrentTenant> => repo.findBySlug(type, slug)

    /** Summaries of a whole page's categories in one query, by id; unknown ids are absent. */
    const summaries = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, CategorySummary>, never, CurrentTenant> =>
      Effect.map(repo.byIds(ids), (rows) => new Map([...rows].map(([id, row]) => [id, toCategorySummary(row)])))

    return { findById, findBySlug, summaries } as const
  })
}) {}
