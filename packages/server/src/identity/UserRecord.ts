import {
  type Actor,
  AuthUserView,
  Language,
  MyProfile,
  NotificationPreferenceDefaults,
  NotificationPreferences,
  PublicProfile,
  Role,
  TenantId,
  UserId,
  UserStatus
} from "@timebank/domain"
import { DateTime, Schema } from "effect"
import { DbDate, dbId } from "../platform/SqlRows.js"
import { PLATFORM_TENANT_SLUG } from "../tenancy/TenantDirectory.js"

/** A row of `users` as repos read it (`SELECT *`; columns not named here are dropped). */
export const UserRow = Schema.Struct({
  id: dbId(UserId),
  tenant_id: dbId(TenantId),
  email: Schema.String,
  password_hash: Schema.NullOr(Schema.String),
  first_name: Schema.String,
  last_name: Schema.String,
  bio: Schema.NullOr(Schema.String),
  avatar_url: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  role: Role,
  is_super_admin: Schema.Boolean,
  is_god: Schema.Boolean,
  status: UserStatus,
  is_approved: Schema.Boolean,
  preferred_language: Language,
  federation_opt_in: Schema.Boolean,
  notification_preferences: Schema.partialWith(NotificationPreferences, { exact: true }),
  two_factor_secret: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type UserRow = typeof UserRow.Type

export const userId = (row: Pick<UserRow, "id">): UserId => row.id

export const toAuthUser = (row: UserRow): AuthUserView =>
  AuthUserView.make({
    id: row.id,
    tenant_id: row.tenant_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    avatar_url: row.avatar_url,
    role: row.role,
    status: row.status,
    is_approved: row.is_approved,
    is_admin: row.role === "admin",
    is_super_admin: row.is_super_admin,
    is_god: row.is_god,
    preferred_language: row.preferred_language,
    federation_opt_in: row.federation_opt_in
  })

export const toMyProfile = (row: UserRow): MyProfile =>
  MyProfile.make({
    ...toAuthUser(row),
    bio: row.bio,
    location: row.location,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

export const toPublicProfile = (row: UserRow): PublicProfile =>
  PublicProfile.make({
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    avatar_url: row.avatar_url,
    bio: row.bio,
    location: row.location,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

export const preferencesOf = (row: Pick<UserRow, "notification_preferences">): NotificationPreferences => ({
  ...NotificationPreferenceDefaults,
  ...row.notification_preferences
})

/** Whether the account may act at all: approved, active and not erased. */
export const canSignIn = (row: Pick<UserRow, "status" | "is_approved" | "deleted_at">) =>
  row.status === "active" && row.is_approved && row.deleted_at === null

export const toActor = (
  row: Pick<UserRow, "id" | "tenant_id" | "role" | "status" | "is_approved" | "is_super_admin" | "is_god">,
  actingTenantId: TenantId,
  session: { readonly id: number | null; readonly impersonatorId: number | null; readonly homeTenantSlug: string }
): Actor => ({
  userId: row.id,
  tenantId: row.tenant_id,
  actingTenantId,
  role: row.role,
  status: row.status,
  isApproved: row.is_approved,
  isSuperAdmin: row.is_super_admin,
  isGod: row.is_god,
  isPlatformUser: session.homeTenantSlug === PLATFORM_TENANT_SLUG,
  sessionId: session.id,
  impersonatorId: session.impersonatorId === null ? null : (session.impersonatorId as UserId)
})
