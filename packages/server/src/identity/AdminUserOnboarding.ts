import {
  AlreadyExists,
  type CreatedUser,
  type CreateUser,
  CurrentTenant,
  DomainEvents,
  type ImportResult,
  type ImportRowError,
  type UserId,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Either, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { found } from "./AdminUserGuards.js"
import { AdminUserRepo } from "./AdminUserRepo.js"
import { MailOutbox, recipientData } from "./MailOutbox.js"
import { hashPassword } from "./Password.js"
import { PasswordResetRepo } from "./PasswordResetRepo.js"
import { hashToken, newToken } from "./Tokens.js"
import { IMPORT_TEMPLATE, planImport } from "./UserImport.js"
import type { UserRow } from "./UserRecord.js"
import { type UserInsert, UserRepo } from "./UserRepo.js"

/**
 * Admins bringing people in: creating accounts one by one or from a CSV, and the welcome and password-reset mails
 * that let those people sign in.
 */
export class AdminUserOnboarding extends Effect.Service<AdminUserOnboarding>()("AdminUserOnboarding", {
  dependencies: [
    AdminUserRepo.Default,
    UserRepo.Default,
    PasswordResetRepo.Default,
    MailOutbox.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* AdminUserRepo
    const users = yield* UserRepo
    const resets = yield* PasswordResetRepo
    const mail = yield* MailOutbox
    const outbox = yield* Outbox

    const emailTaken = new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })

    /** A fresh one-time reset token for `user`: the hash is stored, the token itself goes into the e-mail. */
    const resetToken = (user: UserRow) =>
      Effect.gen(function*() {
        const token = newToken()
        const expiresAt = yield* resets.issue(user.id, hashToken(token))
        return { token, expires_at: expiresAt.toISOString() }
      })

    const tenantMailData = (user: UserRow) => Effect.map(CurrentTenant, (tenant) => recipientData(user, tenant))

    /** An active, approved account an admin made, with its `UserCreated` event; none when the e-mail is taken. */
    const insertCreated = (
      source: "admin" | "import",
      createdBy: number,
      account: Omit<UserInsert, "status" | "isApproved">
    ) =>
      Effect.gen(function*() {
        const row = yield* users.insert({ ...account, status: "active", isApproved: true })
        if (Option.isNone(row)) return row
        yield* outbox.append(
          new DomainEvents.UserCreated({
            user_id: row.value.id,
            email: row.value.email,
            role: row.value.role,
            is_super_admin: false,
            source,
            created_by: createdBy
          })
        )
        return row
      })

    const create = Effect.fn("AdminUsers.create")(function*(input: CreateUser) {
      const admin = yield* TenantAdmin
      const tenant = yield* CurrentTenant
      if (yield* users.emailTaken(input.email)) return yield* emailTaken
      const passwordHash = input.password === undefined ? null : yield* hashPassword(input.password)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* insertCreated("admin", admin.userId, {
          email: input.email,
          passwordHash,
          firstName: input.first_name,
          lastName: input.last_name,
          role: input.role ?? "member",
          preferredLanguage: input.preferred_language ?? tenant.settings.default_language
        })
        if (Option.isNone(row)) return yield* emailTaken
        return row.value
      }))
      return {
        id: row.id,
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
          const row = yield* insertCreated("import", admin.userId, {
            email: c.email,
            passwordHash: null,
            firstName: c.firstName,
            lastName: c.lastName,
            role: c.role,
            preferredLanguage: tenant.settings.default_language
          })
          if (Option.isSome(row)) return count + 1
          // Created by someone else since the check above.
          errors.push({ row: c.row, field: "email", message: "an account with this e-mail exists" })
          return count
        })))
      errors.sort((a, b) => a.row - b.row)
      return { created, errors } satisfies ImportResult
    }, requireTenantAdmin)

    const importTemplate = requireTenantAdmin(Effect.as(TenantAdmin, IMPORT_TEMPLATE)).pipe(
      Effect.withSpan("AdminUsers.importTemplate")
    )

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

    return { create, importCsv, importTemplate, sendPasswordReset, sendWelcomeEmail } as const
  })
}) {}
