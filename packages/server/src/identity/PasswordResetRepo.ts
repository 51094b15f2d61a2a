import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeSingle } from "../platform/SqlRows.js"
import { dieOnSqlError, TenantSql } from "../platform/TenantSql.js"

/** How long a password reset link sent by an admin (or a welcome mail's set-password link) works. */
export const PASSWORD_RESET_SECONDS = 86_400

/** How long the link of a reset the member asked for (`POST /api/v2/auth/password-reset`) works. */
export const MEMBER_PASSWORD_RESET_SECONDS = 3_600

/** A reset token as the confirmation finds it: whose it is and whether it may still be used. */
const ResetTokenState = Schema.Struct({
  userId: Schema.propertySignature(DbInt).pipe(Schema.fromKey("user_id")),
  used: Schema.Boolean,
  expired: Schema.Boolean
})
export type ResetTokenState = typeof ResetTokenState.Type

const firstToken = decodeFirst(ResetTokenState)
const expiry = decodeSingle(Schema.Struct({ expires_at: DbDate }))

/**
 * One-time password reset tokens, stored only as their SHA-256. A user has at most one usable token: issuing a
 * new one retires the others. User ids are unique across tenants; callers check the user's tenant first.
 */
export class PasswordResetRepo extends Effect.Service<PasswordResetRepo>()("PasswordResetRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const db = yield* TenantSql

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
          sql`
            INSERT INTO password_reset_tokens (token_hash, user_id, expires_at)
            VALUES (${tokenHash}, ${userId}, now() + make_interval(secs => ${seconds}))
            RETURNING expires_at`.pipe(expiry, Effect.map((row) => row.expires_at), dieOnSqlError)
        ),

      /** The token with this hash, if it belongs to a user of the current tenant who is not erased. */
      find: (tokenHash: string) =>
        db.query((tenantId) =>
          sql`
            SELECT t.user_id, t.used_at IS NOT NULL AS used, t.expires_at <= now() AS expired
            FROM password_reset_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.token_hash = ${tokenHash} AND u.tenant_id = ${tenantId} AND u.deleted_at IS NULL`.pipe(firstToken)
        ),

      /**
       * Uses the token up if it is still usable: `false` when a concurrent request used it first (or it expired in
       * between). The UPDATE decides, so two confirmations with one token change the password once.
       */
      consume: (tokenHash: string) =>
        sql`
          UPDATE password_reset_tokens SET used_at = now()
          WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > now()
          RETURNING user_id`.pipe(Effect.map((rows) => rows.length === 1), dieOnSqlError),

      revokeAllOf
    } as const
  })
}) {}
