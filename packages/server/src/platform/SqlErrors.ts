import type { SqlError } from "@effect/sql/SqlError"

const UNIQUE_VIOLATION = "23505"

/** A unique index refused the row (a race the service's own check could not see). */
export const isUniqueViolation = (error: SqlError) =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause &&
  error.cause.code === UNIQUE_VIOLATION

/** `%`, `_` and `\` match themselves in an ILIKE search. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const definedOnly = <A extends object>(patch: A): Record<string, unknown> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
