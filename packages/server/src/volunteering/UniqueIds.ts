import { Effect } from "effect"

/**
 * A lookup for a page's ids, run once with the distinct ids, and not at all (an empty map) for an empty page: the
 * shape of every "one query per relation" read of this feature.
 */
export const forUniqueIds = <V, E, R>(
  lookup: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, V>, E, R>
) =>
(ids: ReadonlyArray<number>): Effect.Effect<ReadonlyMap<number, V>, E, R> => {
  const unique = [...new Set(ids)]
  return unique.length === 0 ? Effect.succeed(new Map()) : lookup(unique)
}

/** Rows keyed by their id. */
export const keyedById = <A extends { readonly id: number }>(rows: ReadonlyArray<A>): ReadonlyMap<number, A> =>
  new Map(rows.map((row) => [row.id, row]))
