import type { Language, NotificationPreferences, Role, UserStatus } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { definedOnly } from "../platform/SqlErrors.js"
import { DbInt, decodeFirst, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { UserRow } from "./UserRecord.js"

export interface UserInsert {
  readonly email: string
  readonly passwordHash: string | null
  readonly firstName: string
  readonly lastName: string
  readonly role: Role
  readonly status: UserStatus
  readonly isApproved: boolean
  readonly preferredLanguage: Language
}

export interface ProfilePatch {
  readonly first_name?: string
  readonly last_name?: string
  readonly bio?: string | null
  readonly avatar_url?: string | null
  readonly location?: string | null
  readonly preferred_language?: Language
  readonly federation_opt_in?: boolean
}

const firstUser = decodeFirst(UserRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

/** Users of the current tenant. */
export class UserRepo extends Effect.Service<UserRepo>()("UserRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM users WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(
            firstUser
          )
        ),
      findByEmail: (email: string) =>
        db.query((tenantId) =>
          sql`SELECT * FROM users
            WHERE tenant_id = ${tenantId} AND lower(email) = lower(${email}) AND deleted_at IS NULL`.pipe(
            firstUser
          )
        ),
      emailTaken: (email: string) =>
        db.query((tenantId) =>
          sql`SELECT count(*)::int AS n FROM users
            WHERE tenant_id = ${tenantId} AND lower(email) = lower(${email})`.pipe(
            count,
            Effect.map((row) => row.n > 0)
          )
        ),
      insert: (u: UserInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO users (tenant_id, email, password_hash, first_name, last_name, role, status, is_approved,
                               preferred_language)
            VALUES (${tenantId}, ${u.email}, ${u.passwordHash}, ${u.firstName}, ${u.lastName}, ${u.role}, ${u.status},
                    ${u.isApproved}, ${u.preferredLanguage})
            ON CONFLICT DO NOTHING
            RETURNING *`.pipe(firstUser)
        ),
      updateProfile: (id: number, patch: ProfilePatch) =>
        db.query((tenantId) =>
          sql`
            UPDATE users SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstUser)
        ),
      updatePreferences: (id: number, patch: Partial<NotificationPreferences>) =>
        db.query((tenantId) =>
          sql`
            UPDATE users SET notification_preferences = notification_preferences || ${JSON.stringify(patch)}::jsonb,
                             updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstUser)
        ),
      markSignedIn: (id: number) =>
        db.query((tenantId) =>
          sql`UPDATE users SET last_login_at = now() WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.asVoid)
        ),
      /** The site-level super-admin flag (decisions D4); only meaningful on the `platform` tenant. */
      setSuperAdmin: (id: number, value: boolean) =>
        db.query((tenantId) =>
          sql`
            UPDATE users SET is_super_admin = ${value}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstUser)
        )
    } as const
  })
}) {}
