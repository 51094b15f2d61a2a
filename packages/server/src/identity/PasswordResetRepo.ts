import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../platform/TenantSql.js"

/** How long a password reset (or set-password) link works. */
export const PASSWORD_RESET_SECONDS = 86_400

/**
 * One-time password reset tokens, stored only as their SHA-256. A user has at most one usable token: issuing a
 * new one retires the others. User ids are unique across tenants; callers check the user's tenant first.
 */
export class PasswordResetRepo extends Effect.Service<PasswordResetRepo>()("PasswordResetRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const revokeAllOf = (userId: number) =>
      sql`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = ${userId} AND used_at IS NULL`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    return {
      /** Stores a new token's hash; returns when it expires. */
      issue: (userId: number, tokenHash: string, seconds: number = PASSWORD_RESET_SECONDS) =>
        Effect.zipRight(
          revokeAllOf(userId),
          sql<{ expires_at: Date }>`
            INSERT INTO password_reset_tokens (token_hash, user_id, expires_at)
            VALUES (${tokenHash}, ${userId}, now() + make_interval(secs => ${seconds}))
            RETURNING expires_at`.pipe(Effect.map((rows) => rows[0]!.expires_at), dieOnSqlError)
        ),
      revokeAllOf
    } as const
  })
}) {}
