/**
 * Passes a JavaScript array as one PostgreSQL array parameter (`${pgArray(ids)}::bigint[]`). The pg driver
 * serialises arrays itself; the cast only satisfies the statement helper's parameter type.
 */
export const pgArray = <A>(values: ReadonlyArray<A>) => values as unknown as string
