import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../platform/TenantSql.js"

/**
 * How long a used or expired password reset token, and the refresh tokens of a revoked session, are kept: within
 * it a member who opens an old link is told it was used or has expired rather than that it is unknown.
 */
export const SPENT_TOKEN_RETENTION_MS = 7 * 86_400_000

/**
 * Deletes one community's spent credentials, at most `limit` rows per statement (the `tokens.purge` job). Tokens
 * carry no tenant: access and refresh tokens belong to it through their session, reset tokens through their user.
 * What goes can no longer be used either way: an expired access token, a refresh token past its own or its session's
 * expiry, or of a session revoked long ago (a consumed one of a live session stays: its reuse revokes the session).
 */
export class TokenPurgeRepo extends Effect.Service<TokenPurgeRepo>()("TokenPurgeRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const count = <A, E, R>(statement: Effect.Effect<ReadonlyArray<A>, E, R>) =>
      statement.pipe(Effect.map((rows) => rows.length), dieOnSqlError)
    const longAgo = (at: Date) => new Date(at.getTime() - SPENT_TOKEN_RETENTION_MS)

    return {
      accessTokens: (tenantId: number, at: Date, limit: number) =>
        count(sql`
          DELETE FROM access_tokens WHERE token_hash IN (
            SELECT a.token_hash FROM access_tokens a JOIN auth_sessions s ON s.id = a.session_id
            WHERE s.tenant_id = ${tenantId} AND a.expires_at < ${at} LIMIT ${limit})
          RETURNING token_hash`),

      refreshTokens: (tenantId: number, at: Date, limit: number) =>
        count(sql`
          DELETE FROM refresh_tokens WHERE token_hash IN (
            SELECT r.token_hash FROM refresh_tokens r JOIN auth_sessions s ON s.id = r.session_id
            WHERE s.tenant_id = ${tenantId}
              AND (r.expires_at < ${at} OR s.expires_at < ${at} OR s.revoked_at < ${longAgo(at)})
            LIMIT ${limit})
          RETURNING token_hash`),

      passwordResetTokens: (tenantId: number, at: Date, limit: number) =>
        count(sql`
          DELETE FROM password_reset_tokens WHERE token_hash IN (
            SELECT t.token_hash FROM password_reset_tokens t JOIN users u ON u.id = t.user_id
            WHERE u.tenant_id = ${tenantId} AND (t.used_at < ${longAgo(at)} OR t.expires_at < ${longAgo(at)})
            LIMIT ${limit})
          RETURNING token_hash`)
    } as const
  })
}) {}
