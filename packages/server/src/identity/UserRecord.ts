import {
  type Actor,
  AuthUserView,
  type Language,
  MyProfile,
  NotificationPreferenceDefaults,
  type NotificationPreferences,
  PublicProfile,
  type Role,
  type TenantId,
  type UserId,
  type UserStatus
} from "@timebank/domain"
import { DateTime } from "effect"

/** A row of `users` as repos read it. */
export interface UserRow {
  readonly id: string
  readonly tenant_id: string
  readonly email: string
  readonly password_hash: string | null
  readonly first_name: string
  readonly last_name: string
  readonly bio: string | null
  readonly avatar_url: string | null
  readonly location: string | null
  readonly role: Role
  readonly is_super_admin: boolean
  readonly is_god: boolean
  readonly status: UserStatus
  readonly is_approved: boolean
  readonly preferred_language: Language
  readonly federation_opt_in: boolean
  readonly notification_preferences: Partial<NotificationPreferences>
  readonly two_factor_secret: string | null
  readonly deleted_at: Date | null
  readonly created_at: Date
}

export const userId = (row: Pick<UserRow, "id">) => Number(row.id) as UserId
export const tenantIdOf = (row: Pick<UserRow, "tenant_id">) => Number(row.tenant_id) as TenantId

export const toAuthUser = (row: UserRow): AuthUserView =>
  AuthUserView.make({
    id: userId(row),
    tenant_id: tenantIdOf(row),
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
    id: userId(row),
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

export const PLATFORM_TENANT_SLUG = "platform"

/** Whether the account may act at all: approved, active and not erased. */
export const canSignIn = (row: Pick<UserRow, "status" | "is_approved" | "deleted_at">) =>
  row.status === "active" && row.is_approved && row.deleted_at === null

export const toActor = (
  row: UserRow,
  actingTenantId: TenantId,
  session: { readonly id: number | null; readonly impersonatorId: number | null; readonly homeTenantSlug: string }
): Actor => ({
  userId: userId(row),
  tenantId: tenantIdOf(row),
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
