import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { preparedRead, PreparedReads } from "../platform/PreparedReads.js"
import { DbDate, DbInt, decodeFirst, decodeSingle } from "../platform/SqlRows.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { UserRow } from "./UserRecord.js"

/** A user row with the session it was reached through. */
export const SessionUserRow = Schema.Struct({
  ...UserRow.fields,
  session_id: Schema.NullOr(DbInt),
  impersonator_id: Schema.NullOr(DbInt)
})
export type SessionUserRow = typeof SessionUserRow.Type

/** The user columns of {@link CallerRow}, listed once for its schema and its SQL. */
const CALLER_USER_COLUMNS = [
  "id",
  "tenant_id",
  "role",
  "is_super_admin",
  "is_god",
  "status",
  "is_approved",
  "deleted_at"
] as const

/**
 * What admitting a caller needs of the user behind a session (who, where, role, whether they may sign in) and the
 * session itself: the bearer and cookie lookups of every request read and decode these columns only.
 */
export const CallerRow = Schema.Struct({
  ...UserRow.pick(...CALLER_USER_COLUMNS).fields,
  session_id: Schema.NullOr(DbInt),
  impersonator_id: Schema.NullOr(DbInt)
})
export type CallerRow = typeof CallerRow.Type

export const RefreshRow = Schema.Struct({
  session_id: DbInt,
  consumed_at: Schema.NullOr(DbDate),
  expired: Schema.Boolean,
  session_revoked: Schema.Boolean
})
export type RefreshRow = typeof RefreshRow.Type

const firstSessionUser = decodeFirst(SessionUserRow)
const firstCaller = decodeFirst(CallerRow)

/**
 * The caller's user columns by name, not `u.*`: a prepared `u.*` fixes its column list when first planned, so a
 * migration adding a column under a running process would break it.
 */
const callerColumns = CALLER_USER_COLUMNS.map((column) => `u.${column}`).join(", ")

/** A session (`s`) that still holds, of a user (`u`) who was not erased: every lookup below asks this. */
const ACTIVE = "s.revoked_at IS NULL AND s.expires_at > now() AND u.deleted_at IS NULL"

/** The user and session behind an access token (`$1`, its hash): the bearer lookup of every request. */
const CALLER_BY_ACCESS_TOKEN = preparedRead(`
  SELECT ${callerColumns}, s.id AS session_id, s.impersonator_id
  FROM access_tokens t
  JOIN auth_sessions s ON s.id = t.session_id
  JOIN users u ON u.id = s.user_id
  WHERE t.token_hash = $1 AND t.expires_at > now() AND ${ACTIVE}`)
const firstRefresh = decodeFirst(RefreshRow)
const insertedId = decodeSingle(Schema.Struct({ id: DbInt }))

export interface NewSession {
  readonly tenantId: number
  readonly userId: number
  readonly kind: "login" | "impersonation"
  readonly impersonatorId: number | null
  readonly cookieTokenHash: string | null
  readonly lifetimeSeconds: number
}

/**
 * Sessions (token families), access and refresh tokens. A token names its own tenant, so lookups here are by token
 * hash; the caller compares the tenant with the request's.
 */
export class SessionRepo extends Effect.Service<SessionRepo>()("SessionRepo", {
  dependencies: [PreparedReads.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = yield* PreparedReads

    /** `columns` of the user (`u`) and the session of a session that still holds, found by `condition`. */
    const activeSession = (columns: string, condition: Statement.Fragment) =>
      sql`
        SELECT ${sql.literal(columns)}, s.id AS session_id, s.impersonator_id
        FROM auth_sessions s JOIN users u ON u.id = s.user_id
        WHERE ${condition} AND ${sql.literal(ACTIVE)}`

    return {
      create: (s: NewSession) =>
        sql`
          INSERT INTO auth_sessions (tenant_id, user_id, kind, impersonator_id, cookie_token_hash, expires_at)
          VALUES (${s.tenantId}, ${s.userId}, ${s.kind}, ${s.impersonatorId}, ${s.cookieTokenHash},
                  now() + make_interval(secs => ${s.lifetimeSeconds}))
          RETURNING id`.pipe(insertedId, Effect.map((row) => row.id), dieOnSqlError),

      /** Issues an access token and, unless `refreshSeconds` is null, a refresh token in one statement. */
      issue: (
        sessionId: number,
        access: { hash: string; seconds: number },
        refresh: { hash: string; seconds: number } | null
      ) =>
        sql`
          WITH a AS (
            INSERT INTO access_tokens (token_hash, session_id, expires_at)
            VALUES (${access.hash}, ${sessionId}, now() + make_interval(secs => ${access.seconds}))
          )
          INSERT INTO refresh_tokens (token_hash, session_id, expires_at)
          SELECT ${refresh?.hash ?? ""}, ${sessionId}, now() + make_interval(secs => ${refresh?.seconds ?? 0})
          WHERE ${refresh !== null}`.pipe(Effect.asVoid, dieOnSqlError),

      /** Prepared: it runs on every authenticated request, and planning it cost more than running it. */
      callerByAccessToken: (hash: string) => prepared.untenanted(CALLER_BY_ACCESS_TOKEN, [hash]).pipe(firstCaller),

      callerBySessionCookie: (hash: string) =>
        activeSession(callerColumns, sql`s.cookie_token_hash = ${hash}`).pipe(firstCaller, dieOnSqlError),

      userBySession: (sessionId: number) =>
        activeSession("u.*", sql`s.id = ${sessionId}`).pipe(firstSessionUser, dieOnSqlError),

      /** A user of any tenant, for legacy JWTs, which name the user directly. */
      userById: (id: number) =>
        sql`
          SELECT u.*, NULL AS session_id, NULL AS impersonator_id
          FROM users u
          WHERE u.id = ${id} AND u.deleted_at IS NULL`.pipe(firstSessionUser, dieOnSqlError),

      findRefresh: (hash: string) =>
        sql`
          SELECT r.session_id, r.consumed_at, r.expires_at <= now() OR s.expires_at <= now() AS expired,
                 s.revoked_at IS NOT NULL AS session_revoked
          FROM refresh_tokens r JOIN auth_sessions s ON s.id = r.session_id
          WHERE r.token_hash = ${hash}`.pipe(firstRefresh, dieOnSqlError),

      /** Marks a refresh token used; false when another request consumed it first. */
      consumeRefresh: (hash: string) =>
        sql`UPDATE refresh_tokens SET consumed_at = now() WHERE token_hash = ${hash} AND consumed_at IS NULL
            RETURNING token_hash`.pipe(Effect.map((rows) => rows.length === 1), dieOnSqlError),

      extend: (sessionId: number, lifetimeSeconds: number) =>
        sql`UPDATE auth_sessions SET expires_at = now() + make_interval(secs => ${lifetimeSeconds})
            WHERE id = ${sessionId} AND kind = 'login'`.pipe(Effect.asVoid, dieOnSqlError),

      revoke: (sessionId: number) =>
        sql`UPDATE auth_sessions SET revoked_at = now() WHERE id = ${sessionId} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          dieOnSqlError
        ),

      revokeAllOf: (userId: number) =>
        sql`UPDATE auth_sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`.pipe(
          Effect.asVoid,
          dieOnSqlError
        )
    } as const
  })
}) {}
