import { AdminUserView, type Language, type Role, type UserConsent, type UserStatus } from "@timebank/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { definedOnly, isUniqueViolation, likePattern } from "../platform/SqlErrors.js"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type Ranked, rankScore } from "../tenancy/config/Ranking.js"
import { toAuthUser, UserRow } from "./UserRecord.js"

/** A `users` row with the columns only admins see. */
export const AdminUserRow = Schema.Struct({ ...UserRow.fields, last_login_at: Schema.NullOr(DbDate) })
export type AdminUserRow = typeof AdminUserRow.Type

export const toAdminUser = (row: AdminUserRow): AdminUserView =>
  AdminUserView.make({
    ...toAuthUser(row),
    bio: row.bio,
    location: row.location,
    has_password: row.password_hash !== null,
    two_factor_enabled: row.two_factor_secret !== null,
    created_at: DateTime.unsafeFromDate(row.created_at),
    last_login_at: row.last_login_at === null ? null : DateTime.unsafeFromDate(row.last_login_at)
  })

export interface UserListQuery {
  readonly page: number
  readonly perPage: number
  readonly status?: UserStatus | undefined
  readonly role?: Role | undefined
  readonly search?: string | undefined
  /** The community's `members` order for this search; newest first when undefined. */
  readonly ranked?: Ranked | undefined
}

export interface AdminUserPatch {
  readonly email?: string
  readonly first_name?: string
  readonly last_name?: string
  readonly role?: Role
  readonly preferred_language?: Language
  readonly bio?: string | null
  readonly avatar_url?: string | null
  readonly location?: string | null
  readonly federation_opt_in?: boolean
}

const ConsentRow = Schema.Struct({
  id: DbInt,
  consent_type: Schema.String,
  granted: Schema.Boolean,
  created_at: DbDate
})

/** What an update found: the changed row, no such user, or an e-mail another user of the tenant has. */
export type UpdateOutcome =
  | { readonly _tag: "Updated"; readonly row: AdminUserRow }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "EmailTaken" }

const firstUser = decodeFirst(AdminUserRow)
const allUsers = decodeRows(AdminUserRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))
const emails = decodeRows(Schema.Struct({ email: Schema.String }))
const wasEnabled = decodeFirst(Schema.Struct({ was_enabled: Schema.Boolean }))
const consents = decodeRows(ConsentRow)

/**
 * The users of the current tenant as admins manage them. Erased users (`deleted_at` set) are gone for every
 * method here: their rows stay only so that the ledger and history keep their references.
 */
export class AdminUserRepo extends Effect.Service<AdminUserRepo>()("AdminUserRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const updateStatement = (tenantId: number, id: number, set: Record<string, unknown>) =>
      sql`
        UPDATE users SET ${sql.update({ ...set, updated_at: new Date() })}
        WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
        RETURNING *`.pipe(firstUser)

    /** Updates a live user of the tenant and returns the new row. */
    const updateLive = (id: number, set: Record<string, unknown>) =>
      db.query((tenantId) => updateStatement(tenantId, id, set))

    return {
      list: (q: UserListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.role !== undefined) conditions.push(sql`role = ${q.role}`)
          if (q.search !== undefined && q.search !== "") {
            const pattern = likePattern(q.search)
            conditions.push(sql`(email ILIKE ${pattern} OR first_name ILIKE ${pattern} OR last_name ILIKE ${pattern}
              OR first_name || ' ' || last_name ILIKE ${pattern})`)
          }
          const where = sql.and(conditions)
          // Names weigh more than the address, whose parts count as words (`smith` finds ada.smith@…).
          const vector = sql`(setweight(to_tsvector('simple', first_name || ' ' || last_name), 'A')
            || setweight(to_tsvector('simple', translate(email, '@._+-', '     ')), 'B'))`
          const order = q.ranked === undefined
            ? sql`id DESC`
            : sql`${rankScore(sql, q.ranked, vector, sql`created_at`)} DESC, id DESC`
          return Effect.all({
            rows: sql`SELECT * FROM users WHERE ${where}
              ORDER BY ${order} LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(allUsers),
            total: sql`SELECT count(*)::int AS n FROM users WHERE ${where}`.pipe(count, Effect.map((row) => row.n))
          }, { concurrency: 2 })
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM users WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`
            .pipe(firstUser)
        ),

      /** Lower-cased e-mails among `emails` that users of the tenant (erased ones included) already have. */
      existingEmails: (wanted: ReadonlyArray<string>) =>
        wanted.length === 0
          ? Effect.succeed(new Set<string>())
          : db.query((tenantId) =>
            sql`SELECT lower(email) AS email FROM users
              WHERE tenant_id = ${tenantId} AND lower(email) IN ${sql.in(wanted.map((e) => e.toLowerCase()))}`.pipe(
              emails,
              Effect.map((rows) => new Set(rows.map((r) => r.email)))
            )
          ),

      /** A changed e-mail that another user of the tenant has (even in another case) is refused, not a defect. */
      update: (id: number, patch: AdminUserPatch) =>
        db.query((tenantId) =>
          updateStatement(tenantId, id, definedOnly(patch)).pipe(
            Effect.map((row): UpdateOutcome =>
              Option.match(row, {
                onNone: () => ({ _tag: "NotFound" }),
                onSome: (r) => ({ _tag: "Updated", row: r })
              })
            ),
            Effect.catchIf(
              isUniqueViolation,
              (): Effect.Effect<UpdateOutcome> => Effect.succeed({ _tag: "EmailTaken" })
            )
          )
        ),

      setStatus: (id: number, status: UserStatus, isApproved?: boolean) =>
        updateLive(id, definedOnly({ status, is_approved: isApproved })),

      setPassword: (id: number, passwordHash: string) => updateLive(id, { password_hash: passwordHash }),

      /** Clears the second factor; says whether there was one. */
      clearTwoFactor: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE users u SET two_factor_secret = NULL, updated_at = now()
            FROM (SELECT id, two_factor_secret IS NOT NULL AS was_enabled FROM users
                  WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL FOR UPDATE) prev
            WHERE u.id = prev.id
            RETURNING prev.was_enabled`.pipe(wasEnabled, Effect.map(Option.map((row) => row.was_enabled)))
        ),

      /**
       * Erases the personal data of a user and deactivates the account. The row stays (ledger entries and history
       * point to it); its e-mail becomes a placeholder that cannot receive mail or collide with a real address.
       */
      erase: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE users SET
              email = 'deleted-' || id || '@deleted.invalid',
              first_name = 'Deleted', last_name = 'User',
              password_hash = NULL, two_factor_secret = NULL,
              bio = NULL, avatar_url = NULL, location = NULL,
              federation_opt_in = false, notification_preferences = '{}',
              status = 'suspended', is_approved = false,
              deleted_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstUser)
        ),

      consents: (userId: number) =>
        db.query((tenantId) =>
          sql`SELECT id, consent_type, granted, created_at FROM user_consents
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}
            ORDER BY created_at DESC, id DESC`.pipe(
            consents,
            Effect.map((rows) =>
              rows.map((r): UserConsent => ({
                id: r.id,
                consent_type: r.consent_type,
                granted: r.granted,
                created_at: DateTime.unsafeFromDate(r.created_at)
              }))
            )
          )
        )
    } as const
  })
}) {}
