import {
  type Actor,
  AlreadyExists,
  type CreatedUser,
  type CreateUser,
  CurrentTenant,
  Forbidden,
  type ImpersonationToken,
  type ImportResult,
  type ImportRowError,
  type ListUsersParams,
  NotFound,
  offsetMeta,
  type UpdateUser,
  type UserId,
  type UserStatus,
  type UserStatusChange,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Either, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { AdminUserRepo, toAdminUser } from "./AdminUserRepo.js"
import { MailOutbox, recipientData } from "./MailOutbox.js"
import { hashPassword } from "./Password.js"
import { PasswordResetRepo } from "./PasswordResetRepo.js"
import { isPlatformAdmin, PlatformAdmin, requirePlatformAdmin, requireTenantAdmin, TenantAdmin } from "./Policy.js"
import { SessionRepo } from "./SessionRepo.js"
import { hashToken, IMPERSONATION_SECONDS, newToken } from "./Tokens.js"
import { IMPORT_TEMPLATE, planImport } from "./UserImport.js"
import { canSignIn, toAuthUser, userId, type UserRow } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

export const DEFAULT_USERS_PER_PAGE = 20

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(NotFound.of("User")), onSome: Effect.succeed })

/** Admins never act against their own account: they would lock themselves out or bypass self-service checks. */
const notSelf = (admin: Actor, id: UserId) =>
  admin.userId === id
    ? Effect.fail(new Forbidden({ message: "Admins cannot do this to their own account" }))
    : Effect.void

/** Accounts with platform powers are changed by platform super-admins only, never by a community admin. */
const mayChange = (admin: Actor, user: UserRow) =>
  (user.is_super_admin || user.is_god) && !isPlatformAdmin(admin)
    ? Effect.fail(new Forbidden({ message: "Only platform super-admins may change this account" }))
    : Effect.void

interface StatusRule {
  readonly status: UserStatus
  /** Also marks the account approved. */
  readonly approve: boolean
  /** Ends the user's sessions at once. */
  readonly endSessions: boolean
  readonly event: string
}

const STATUS_RULES = {
  approve: { status: "active", approve: true, endSessions: false, event: "UserApproved" },
  suspend: { status: "suspended", approve: false, endSessions: true, event: "UserSuspended" },
  ban: { status: "banned", approve: false, endSessions: true, event: "UserBanned" },
  reactivate: { status: "active", approve: false, endSessions: false, event: "UserReactivated" }
} as const satisfies Record<string, StatusRule>

/**
 * Community admins managing the users of their community (tenant admin or platform super-admin). Every method is
 * guarded by a typed policy; steps read the admin from `TenantAdmin` / `PlatformAdmin`, so an unguarded path does
 * not compile.
 */
export class AdminUsersService extends Effect.Service<AdminUsersService>()("AdminUsersService", {
  dependencies: [
    AdminUserRepo.Default,
    UserRepo.Default,
    SessionRepo.Default,
    PasswordResetRepo.Default,
    MailOutbox.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* AdminUserRepo
    const users = yield* UserRepo
    const sessions = yield* SessionRepo
    const resets = yield* PasswordResetRepo
    const mail = yield* MailOutbox
    const outbox = yield* Outbox

    const emailTaken = new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })

    /** A live user of this tenant that the admin may change. */
    const changeable = (admin: Actor, id: UserId) =>
      Effect.flatMap(repo.findById(id), found).pipe(Effect.tap((user) => mayChange(admin, user)))

    /** A fresh one-time reset token for `user`: the hash is stored, the token itself goes into the e-mail. */
    const resetToken = (user: UserRow) =>
      Effect.gen(function*() {
        const token = newToken()
        const expiresAt = yield* resets.issue(Number(user.id), hashToken(token))
        return { token, expires_at: expiresAt.toISOString() }
      })

    const tenantMailData = (user: UserRow) => Effect.map(CurrentTenant, (tenant) => recipientData(user, tenant))

    const list = Effect.fn("AdminUsers.list")(function*(params: ListUsersParams) {
      yield* TenantAdmin
      const page = params.page ?? 1
      const perPage = params.per_page ?? DEFAULT_USERS_PER_PAGE
      const { rows, total } = yield* repo.list({
        page,
        perPage,
        status: params.status,
        role: params.role,
        search: params.search
      })
      return { data: rows.map(toAdminUser), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const create = Effect.fn("AdminUsers.create")(function*(input: CreateUser) {
      const admin = yield* TenantAdmin
      const tenant = yield* CurrentTenant
      if (yield* users.emailTaken(input.email)) return yield* emailTaken
      const passwordHash = input.password === undefined ? null : yield* hashPassword(input.password)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* users.insert({
          email: input.email,
          passwordHash,
          firstName: input.first_name,
          lastName: input.last_name,
          role: input.role ?? "member",
          status: "active",
          isApproved: true,
          preferredLanguage: input.preferred_language ?? tenant.settings.default_language
        })
        if (Option.isNone(row)) return yield* emailTaken
        yield* outbox.append("UserCreated", {
          user_id: Number(row.value.id),
          email: row.value.email,
          role: row.value.role,
          is_super_admin: false,
          source: "admin",
          created_by: admin.userId
        })
        return row.value
      }))
      return {
        id: userId(row),
        email: row.email,
        first_name: row.first_name,
        last_name: row.last_name,
        role: row.role,
        status: row.status,
        is_approved: row.is_approved
      } satisfies CreatedUser
    }, requireTenantAdmin)

    /** `upload` yields the file's text; it runs only once the caller passed the policy. */
    const importCsv = Effect.fn("AdminUsers.import")(function*(upload: Effect.Effect<string, ValidationFailed>) {
      const admin = yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const plan = yield* Either.match(planImport(yield* upload), {
        onLeft: (message) => Effect.fail(ValidationFailed.field("file", message)),
        onRight: Effect.succeed
      })
      const errors: Array<ImportRowError> = [...plan.errors]
      const taken = yield* repo.existingEmails(plan.candidates.map((c) => c.email))
      const fresh = plan.candidates.filter((c) => {
        if (!taken.has(c.email.toLowerCase())) return true
        errors.push({ row: c.row, field: "email", message: "an account with this e-mail exists" })
        return false
      })
      const created = yield* db.transaction(Effect.reduce(fresh, 0, (count, c) =>
        Effect.gen(function*() {
          const row = yield* users.insert({
            email: c.email,
            passwordHash: null,
            firstName: c.firstName,
            lastName: c.lastName,
            role: c.role,
            status: "active",
            isApproved: true,
            preferredLanguage: tenant.settings.default_language
          })
          if (Option.isNone(row)) {
            // Created by someone else since the check above.
            errors.push({ row: c.row, field: "email", message: "an account with this e-mail exists" })
            return count
          }
          yield* outbox.append("UserCreated", {
            user_id: Number(row.value.id),
            email: row.value.email,
            role: row.value.role,
            is_super_admin: false,
            source: "import",
            created_by: admin.userId
          })
          return count + 1
        })))
      errors.sort((a, b) => a.row - b.row)
      return { created, errors } satisfies ImportResult
    }, requireTenantAdmin)

    const importTemplate = requireTenantAdmin(Effect.as(TenantAdmin, IMPORT_TEMPLATE)).pipe(
      Effect.withSpan("AdminUsers.importTemplate")
    )

    const get = Effect.fn("AdminUsers.get")(function*(id: UserId) {
      yield* TenantAdmin
      return toAdminUser(yield* found(yield* repo.findById(id)))
    }, requireTenantAdmin)

    const update = Effect.fn("AdminUsers.update")(function*(id: UserId, patch: UpdateUser) {
      const admin = yield* TenantAdmin
      const current = yield* changeable(admin, id)
      if (patch.role !== undefined && patch.role !== current.role) {
        yield* notSelf(admin, id)
      }
      const email = patch.email
      if (email !== undefined && email.toLowerCase() !== current.email.toLowerCase()) {
        if (yield* users.emailTaken(email)) return yield* emailTaken
      }
      const changed = Object.keys(patch).filter((key) => patch[key as keyof UpdateUser] !== undefined)
      return yield* db.transaction(Effect.gen(function*() {
        const outcome = yield* repo.update(id, patch)
        if (outcome._tag === "EmailTaken") return yield* emailTaken
        if (outcome._tag === "NotFound") return yield* NotFound.of("User")
        if (changed.length > 0) {
          yield* outbox.append("UserUpdated", { user_id: id, fields: changed, updated_by: admin.userId })
        }
        if (outcome.row.role !== current.role) {
          yield* outbox.append("UserRoleChanged", {
            user_id: id,
            from: current.role,
            to: outcome.row.role,
            changed_by: admin.userId
          })
        }
        return toAdminUser(outcome.row)
      }))
    }, requireTenantAdmin)

    /** Erases personal data and deactivates; the row stays so that ledger entries keep their account. */
    const erase = Effect.fn("AdminUsers.delete")(function*(id: UserId) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      yield* changeable(admin, id)
      yield* db.transaction(Effect.gen(function*() {
        yield* found(yield* repo.erase(id))
        yield* sessions.revokeAllOf(id)
        yield* resets.revokeAllOf(id)
        yield* mail.forgetUser(id)
        yield* outbox.append("UserErased", { user_id: id, erased_by: admin.userId })
      }))
      return { id, deleted: true as const }
    }, requireTenantAdmin)

    const changeStatus = (action: keyof typeof STATUS_RULES) => {
      const rule: StatusRule = STATUS_RULES[action]
      return Effect.fn(`AdminUsers.${action}`)(function*(id: UserId) {
        const admin = yield* TenantAdmin
        yield* notSelf(admin, id)
        const current = yield* changeable(admin, id)
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* found(yield* repo.setStatus(id, rule.status, rule.approve ? true : undefined))
          if (rule.endSessions) yield* sessions.revokeAllOf(id)
          yield* outbox.append(rule.event, {
            user_id: id,
            previous_status: current.status,
            status: row.status,
            changed_by: admin.userId
          })
          return row
        }))
        return { id, status: row.status, is_approved: row.is_approved } satisfies UserStatusChange
      }, requireTenantAdmin)
    }

    const setPassword = Effect.fn("AdminUsers.setPassword")(function*(id: UserId, password: string) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      yield* changeable(admin, id)
      const passwordHash = yield* hashPassword(password)
      yield* db.transaction(Effect.gen(function*() {
        yield* found(yield* repo.setPassword(id, passwordHash))
        yield* sessions.revokeAllOf(id)
        yield* resets.revokeAllOf(id)
        yield* outbox.append("UserPasswordSet", { user_id: id, set_by: admin.userId })
      }))
      return { id, password_changed: true as const }
    }, requireTenantAdmin)

    const sendPasswordReset = Effect.fn("AdminUsers.sendPasswordReset")(function*(id: UserId) {
      yield* TenantAdmin
      const user = yield* found(yield* repo.findById(id))
      const base = yield* tenantMailData(user)
      yield* db.transaction(Effect.gen(function*() {
        const reset = yield* resetToken(user)
        yield* mail.queue({ userId: id, to: user.email, template: "password_reset", data: { ...base, ...reset } })
      }))
      return { queued: true as const }
    }, requireTenantAdmin)

    /** Users without a password (created by an admin or an import) get a set-password token in the welcome. */
    const sendWelcomeEmail = Effect.fn("AdminUsers.sendWelcomeEmail")(function*(id: UserId) {
      yield* TenantAdmin
      const user = yield* found(yield* repo.findById(id))
      const base = yield* tenantMailData(user)
      yield* db.transaction(Effect.gen(function*() {
        const setPassword = user.password_hash === null ? { set_password: yield* resetToken(user) } : {}
        yield* mail.queue({ userId: id, to: user.email, template: "welcome", data: { ...base, ...setPassword } })
      }))
      return { queued: true as const }
    }, requireTenantAdmin)

    const setSuperAdmin = Effect.fn("AdminUsers.setSuperAdmin")(function*(id: UserId, isSuperAdmin: boolean) {
      const admin = yield* PlatformAdmin
      yield* notSelf(admin, id)
      yield* Effect.flatMap(repo.findById(id), found)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* found(yield* users.setSuperAdmin(id, isSuperAdmin))
        yield* outbox.append("UserSuperAdminChanged", {
          user_id: id,
          is_super_admin: isSuperAdmin,
          changed_by: admin.userId
        })
        return row
      }))
      return { id, is_super_admin: row.is_super_admin }
    }, requirePlatformAdmin)

    const impersonate = Effect.fn("AdminUsers.impersonate")(function*(id: UserId) {
      const admin = yield* TenantAdmin
      if (admin.impersonatorId !== null) {
        return yield* new Forbidden({ message: "An impersonation session cannot start another one" })
      }
      yield* notSelf(admin, id)
      const user = yield* changeable(admin, id)
      if (!isPlatformAdmin(admin) && user.role !== "member") {
        return yield* new Forbidden({ message: "Community admins may impersonate members only" })
      }
      if (!canSignIn(user)) {
        return yield* new Forbidden({ message: "Only active, approved accounts can be impersonated" })
      }
      const token = newToken()
      yield* db.transaction(Effect.gen(function*() {
        const sessionId = yield* sessions.create({
          tenantId: Number(user.tenant_id),
          userId: id,
          kind: "impersonation",
          impersonatorId: admin.userId,
          cookieTokenHash: null,
          lifetimeSeconds: IMPERSONATION_SECONDS
        })
        yield* sessions.issue(sessionId, { hash: hashToken(token), seconds: IMPERSONATION_SECONDS }, null)
        yield* outbox.append("UserImpersonated", { user_id: id, impersonator_id: admin.userId, session_id: sessionId })
      }))
      return {
        access_token: token,
        token_type: "Bearer" as const,
        expires_in: IMPERSONATION_SECONDS,
        impersonation: true as const,
        user: toAuthUser(user)
      } satisfies ImpersonationToken
    }, requireTenantAdmin)

    const consents = Effect.fn("AdminUsers.consents")(function*(id: UserId) {
      yield* TenantAdmin
      yield* Effect.flatMap(repo.findById(id), found)
      return yield* repo.consents(id)
    }, requireTenantAdmin)

    const resetTwoFactor = Effect.fn("AdminUsers.resetTwoFactor")(function*(id: UserId) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      yield* changeable(admin, id)
      const wasEnabled = yield* db.transaction(Effect.gen(function*() {
        const wasEnabled = yield* found(yield* repo.clearTwoFactor(id))
        if (wasEnabled) yield* outbox.append("UserTwoFactorReset", { user_id: id, reset_by: admin.userId })
        return wasEnabled
      }))
      return { id, two_factor_was_enabled: wasEnabled }
    }, requireTenantAdmin)

    return {
      list,
      create,
      importCsv,
      importTemplate,
      get,
      update,
      erase,
      approve: changeStatus("approve"),
      suspend: changeStatus("suspend"),
      ban: changeStatus("ban"),
      reactivate: changeStatus("reactivate"),
      setPassword,
      sendPasswordReset,
      sendWelcomeEmail,
      setSuperAdmin,
      impersonate,
      consents,
      resetTwoFactor
    } as const
  })
}) {}
