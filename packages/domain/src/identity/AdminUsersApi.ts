import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Authentication } from "./Authentication.js"
import { AuthUserView, Email, Language, Password, PersonName, Role, UserId, UserStatus } from "./User.js"
import { UserIdPath } from "./UsersApi.js"

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
const OptionalText = (max: number) => exact(Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(max))))

/** A user as community admins see it: the login view plus profile, activity and sign-in factors. */
export class AdminUserView extends Schema.Class<AdminUserView>("AdminUserView")({
  ...AuthUserView.fields,
  bio: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  has_password: Schema.Boolean.annotations({
    description: "false for accounts created without a password: they sign in only after a password reset"
  }),
  two_factor_enabled: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  last_login_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

export const ListUsersParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(UserStatus).annotations({ description: "Only users with this status" }),
  role: Schema.optional(Role).annotations({ description: "Only users with this role" }),
  search: Schema.optional(Schema.Trim.pipe(Schema.maxLength(200))).annotations({
    description: "Part of the first name, last name, full name or e-mail (case-insensitive)"
  })
})
export type ListUsersParams = typeof ListUsersParams.Type

/** `POST /api/v2/admin/users` (decisions D4). Without a password the user signs in only after a reset. */
export const CreateUser = Schema.Struct({
  email: Email,
  first_name: PersonName,
  last_name: PersonName,
  password: exact(Password),
  role: exact(Role),
  preferred_language: exact(Language)
})
export type CreateUser = typeof CreateUser.Type

export const CreatedUser = Schema.Struct({
  id: UserId,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  role: Role,
  status: UserStatus,
  is_approved: Schema.Boolean
})
export type CreatedUser = typeof CreatedUser.Type

export const UpdateUser = Schema.Struct({
  email: exact(Email),
  first_name: exact(PersonName),
  last_name: exact(PersonName),
  role: exact(Role),
  preferred_language: exact(Language),
  bio: OptionalText(2000),
  avatar_url: OptionalText(2000),
  location: OptionalText(200),
  federation_opt_in: exact(Schema.Boolean)
})
export type UpdateUser = typeof UpdateUser.Type

/** The answer of approve, suspend, ban and reactivate (decisions D4). */
export const UserStatusChange = Schema.Struct({ id: UserId, status: UserStatus, is_approved: Schema.Boolean })
export type UserStatusChange = typeof UserStatusChange.Type

export const UserDeleted = Schema.Struct({ id: UserId, deleted: Schema.Literal(true) })

/** One refused row of a CSV import; `row` is the line number in the file (the header is line 1). */
export const ImportRowError = Schema.Struct({
  row: Schema.Int,
  field: Schema.optional(Schema.String),
  message: Schema.String
})
export type ImportRowError = typeof ImportRowError.Type

export const ImportResult = Schema.Struct({ created: Schema.Int, errors: Schema.Array(ImportRowError) })
export type ImportResult = typeof ImportResult.Type

/**
 * The import upload as the contract documents it (clients send FormData). The server reads the body itself, so the
 * streaming parser this schema would select is never run.
 */
export const ImportUpload = HttpApiSchema.MultipartStream(
  Schema.Struct({
    file: Multipart.SingleFileSchema.annotations({
      description: "CSV, UTF-8, header row email,first_name,last_name,role (role optional: member)"
    })
  })
)

export const SetUserPassword = Schema.Struct({ password: Password })
export const PasswordChanged = Schema.Struct({ id: UserId, password_changed: Schema.Literal(true) })

export const MailQueued = Schema.Struct({ queued: Schema.Literal(true) })

export const SetSuperAdmin = Schema.Struct({ is_super_admin: Schema.Boolean })
export const SuperAdminChanged = Schema.Struct({ id: UserId, is_super_admin: Schema.Boolean })

/** A short-lived token to act as another user: no refresh token, `IMPERSONATION_SECONDS` of life. */
export const ImpersonationToken = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int,
  impersonation: Schema.Literal(true),
  user: AuthUserView
})
export type ImpersonationToken = typeof ImpersonationToken.Type

export const UserConsent = Schema.Struct({
  id: Schema.Int,
  consent_type: Schema.String,
  granted: Schema.Boolean,
  created_at: Schema.DateTimeUtc
})
export type UserConsent = typeof UserConsent.Type

export const TwoFactorReset = Schema.Struct({
  id: UserId,
  two_factor_was_enabled: Schema.Boolean.annotations({ description: "false when the user had no second factor" })
})

const USERS = "/api/v2/admin/users"

const onUser = <const Name extends string, const Method extends "GET" | "POST" | "PUT" | "DELETE">(
  method: Method,
  name: Name,
  suffix: "" | `/${string}`
) => HttpApiEndpoint.make(method)(name, `${USERS}/:id${suffix}`).setPath(UserIdPath).addError(httpError(NotFound))

const statusAction = <const Name extends string>(name: Name, summary: string, description: string) =>
  onUser("POST", name, `/${name}`)
    .annotate(OpenApi.Summary, summary)
    .addSuccess(DataEnvelope(UserStatusChange))
    .annotate(OpenApi.Description, `${description}; acting on oneself is 403`)

/** Community admins manage the members of their community (tenant admin or platform super-admin). */
export class AdminUsersApi extends HttpApiGroup.make("adminUsers")
  .annotate(OpenApi.Title, "Admin: users")
  .annotate(
    OpenApi.Description,
    "Community admins manage the members of their community (tenant admins and platform super-admins)"
  )
  .add(
    HttpApiEndpoint.get("list", USERS)
      .annotate(OpenApi.Summary, "List users")
      .setUrlParams(ListUsersParams)
      .addSuccess(OffsetPage(AdminUserView))
      .annotate(OpenApi.Description, "Users of this community, newest first; filters status, role, search")
  )
  .add(
    HttpApiEndpoint.post("create", USERS)
      .annotate(OpenApi.Summary, "Create a user")
      .setPayload(CreateUser)
      .addSuccess(DataEnvelope(CreatedUser), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "Creates an active, approved user")
  )
  .add(
    HttpApiEndpoint.post("import", `${USERS}/import`)
      .annotate(OpenApi.Summary, "Import users from CSV")
      .setPayload(ImportUpload)
      .addSuccess(DataEnvelope(ImportResult))
      .annotate(OpenApi.Description, "Creates the valid rows of a CSV upload (field `file`) and reports the others")
  )
  .add(
    HttpApiEndpoint.get("importTemplate", `${USERS}/import/template`)
      .annotate(OpenApi.Summary, "Get the CSV import template")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .annotate(OpenApi.Description, "The CSV header row an import expects")
  )
  .add(
    onUser("GET", "get", "")
      .annotate(OpenApi.Summary, "Get a user")
      .annotate(OpenApi.Description, "A user with profile, activity and sign-in factors")
      .addSuccess(DataEnvelope(AdminUserView))
  )
  .add(
    onUser("PUT", "update", "")
      .annotate(OpenApi.Summary, "Update a user")
      .annotate(
        OpenApi.Description,
        "Changes the fields sent (`null` clears an optional one); an e-mail used by another account of this " +
          "community is 409 `ALREADY_EXISTS`"
      )
      .setPayload(UpdateUser)
      .addSuccess(DataEnvelope(AdminUserView))
      .addError(httpError(AlreadyExists))
  )
  .add(
    onUser("DELETE", "delete", "")
      .annotate(OpenApi.Summary, "Delete a user")
      .addSuccess(DataEnvelope(UserDeleted))
      .annotate(
        OpenApi.Description,
        "Erases the user's personal data and deactivates the account; the record stays for the ledger"
      )
  )
  .add(statusAction("approve", "Approve a user", "Activates and approves the account"))
  .add(statusAction("suspend", "Suspend a user", "Suspends the account and ends its sessions"))
  .add(statusAction("ban", "Ban a user", "Bans the account and ends its sessions"))
  .add(statusAction("reactivate", "Reactivate a user", "Makes a suspended or banned account active again"))
  .add(
    onUser("POST", "setPassword", "/password")
      .annotate(OpenApi.Summary, "Set a user's password")
      .setPayload(SetUserPassword)
      .addSuccess(DataEnvelope(PasswordChanged))
      .annotate(OpenApi.Description, "Sets a new password and ends the user's sessions")
  )
  .add(
    onUser("POST", "sendPasswordReset", "/send-password-reset")
      .annotate(OpenApi.Summary, "Send a password reset e-mail")
      .addSuccess(DataEnvelope(MailQueued))
      .annotate(OpenApi.Description, "Queues a password reset e-mail with a one-time link valid 24 hours")
  )
  .add(
    onUser("POST", "sendWelcomeEmail", "/send-welcome-email")
      .annotate(OpenApi.Summary, "Send a welcome e-mail")
      .addSuccess(DataEnvelope(MailQueued))
      .annotate(OpenApi.Description, "Queues a welcome e-mail (with a set-password link when there is no password)")
  )
  .add(
    onUser("PUT", "setSuperAdmin", "/super-admin")
      .annotate(OpenApi.Summary, "Grant or revoke super-admin")
      .setPayload(SetSuperAdmin)
      .addSuccess(DataEnvelope(SuperAdminChanged))
      .annotate(OpenApi.Description, "Platform super-admins only")
  )
  .add(
    onUser("POST", "impersonate", "/impersonate")
      .annotate(OpenApi.Summary, "Impersonate a user")
      .addSuccess(DataEnvelope(ImpersonationToken))
      .annotate(
        OpenApi.Description,
        "A 300-second token acting as the user; tenant admins may impersonate members only"
      )
  )
  .add(
    onUser("GET", "consents", "/consents")
      .annotate(OpenApi.Summary, "List a user's consents")
      .annotate(OpenApi.Description, "The consents the user has given or withdrawn, newest first")
      .addSuccess(DataEnvelope(Schema.Array(UserConsent)))
  )
  .add(
    onUser("POST", "resetTwoFactor", "/reset-2fa")
      .annotate(OpenApi.Summary, "Reset a user's second factor")
      .addSuccess(DataEnvelope(TwoFactorReset))
      .annotate(OpenApi.Description, "Removes the user's second factor, if any")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
