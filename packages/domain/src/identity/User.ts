import { Context, Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { TenantId } from "../tenancy/Tenant.js"

export const UserId = RecordId.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const Role = Schema.Literal("member", "broker", "coordinator", "admin")
export type Role = typeof Role.Type

export const UserStatus = Schema.Literal("pending", "active", "suspended", "banned")
export type UserStatus = typeof UserStatus.Type

/** Languages the service ships (decisions D9). */
export const Language = Schema.Literal("en", "de", "fr", "es")
export type Language = typeof Language.Type

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const Email = Schema.Trim.pipe(
  Schema.maxLength(254),
  Schema.pattern(EMAIL, {
    message: () => "must be an e-mail address",
    jsonSchema: { pattern: EMAIL.source, format: "email" }
  })
)

export const Password = Schema.String.pipe(
  Schema.minLength(8, { message: () => "must be at least 8 characters" }),
  Schema.maxLength(1024)
)

export const PersonName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))

/** The user as login, refresh and the admin API show it (decisions D4). */
export class AuthUserView extends Schema.Class<AuthUserView>("AuthUserView")({
  id: UserId,
  tenant_id: TenantId,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  role: Role,
  status: UserStatus,
  is_approved: Schema.Boolean,
  is_admin: Schema.Boolean,
  is_super_admin: Schema.Boolean,
  is_god: Schema.Boolean,
  preferred_language: Language,
  federation_opt_in: Schema.Boolean
}) {}

/** The caller's own profile. */
export class MyProfile extends Schema.Class<MyProfile>("MyProfile")({
  ...AuthUserView.fields,
  bio: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/** What any member of the community may see of another member. */
export class PublicProfile extends Schema.Class<PublicProfile>("PublicProfile")({
  id: UserId,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/** Notification preferences; every switch defaults to on. */
export const NotificationPreferences = Schema.Struct({
  email_transactions: Schema.Boolean,
  email_messages: Schema.Boolean,
  email_reviews: Schema.Boolean,
  push_enabled: Schema.Boolean,
  /** Off: no e-mail at all (set by an unsubscribe of kind `all`). */
  email_enabled: Schema.Boolean
})
export type NotificationPreferences = typeof NotificationPreferences.Type
export const NotificationPreferenceDefaults: NotificationPreferences = {
  email_transactions: true,
  email_messages: true,
  email_reviews: true,
  push_enabled: true,
  email_enabled: true
}

/** Who is calling: resolved from a bearer token, a legacy JWT or a session cookie. */
export interface Actor {
  readonly userId: UserId
  readonly tenantId: TenantId
  /** The tenant the request is addressed to; differs from `tenantId` only for platform super-admins. */
  readonly actingTenantId: TenantId
  readonly role: Role
  readonly status: UserStatus
  readonly isApproved: boolean
  readonly isSuperAdmin: boolean
  readonly isGod: boolean
  /** The account belongs to the `platform` tenant (where super-admins log in). */
  readonly isPlatformUser: boolean
  readonly sessionId: number | null
  readonly impersonatorId: UserId | null
}

export class CurrentUser extends Context.Tag("CurrentUser")<CurrentUser, Actor>() {}
