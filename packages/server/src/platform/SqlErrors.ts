import type { SqlError } from "@effect/sql/SqlError"

const UNIQUE_VIOLATION = "23505"

/** A unique index refused the row (a race the service's own check could not see). */
export const isUniqueViolation = (error: SqlError) =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause &&
  error.cause.code === UNIQUE_VIOLATION

/**
 * PostgreSQL error classes and socket errors that say "the database was not reachable or gave up for now" (a
 * restart, a full pool, a dropped connection, a deadlock), not "this statement is wrong": trying again later helps.
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P|40001|40P01)/
const TRANSIENT_SOCKET = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"])

/** A failure worth retrying later (see above); constraint, data and syntax errors are not. */
export const isTransientSqlError = (error: SqlError) => {
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null) return true
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  if (code !== undefined) return TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.has(code)
  const message = "message" in cause && typeof cause.message === "string" ? cause.message : ""
  return /connection|timeout|terminat/i.test(message)
}

/** `%`, `_` and `\` match themselves in an ILIKE search. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const definedOnly = <A extends object>(patch: A): Record<string, unknown> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
