import { DomainEvents, Forbidden, type ImpersonationToken, type UserId } from "@timebank/domain"
import { Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import {
  isPlatformAdmin,
  PlatformAdmin,
  requirePlatformAdmin,
  requireTenantAdmin,
  TenantAdmin
} from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { changeableIn, found, notSelf } from "./AdminUserGuards.js"
import { AdminUserRepo } from "./AdminUserRepo.js"
import { hashPassword } from "./Password.js"
import { PasswordResetRepo } from "./PasswordResetRepo.js"
import { SessionRepo } from "./SessionRepo.js"
import { hashToken, IMPERSONATION_SECONDS, newToken } from "./Tokens.js"
import { canSignIn, toAuthUser } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

/**
 * Admins acting on how an account signs in and what powers it has: passwords, second factor, the platform
 * super-admin flag and impersonation.
 */
export class AdminUserSecurity extends Effect.Service<AdminUserSecurity>()("AdminUserSecurity", {
  dependencies: [
    AdminUserRepo.Default,
    UserRepo.Default,
    SessionRepo.Default,
    PasswordResetRepo.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* AdminUserRepo
    const users = yield* UserRepo
    const sessions = yield* SessionRepo
    const resets = yield* PasswordResetRepo
    const outbox = yield* Outbox
    const changeable = changeableIn(repo)

    const setPassword = Effect.fn("AdminUsers.setPassword")(function*(id: UserId, password: string) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      yield* changeable(admin, id)
      const passwordHash = yield* hashPassword(password)
      yield* db.transaction(Effect.gen(function*() {
        yield* found(yield* repo.setPassword(id, passwordHash))
        yield* sessions.revokeAllOf(id)
        yield* resets.revokeAllOf(id)
        yield* outbox.append(new DomainEvents.UserPasswordSet({ user_id: id, set_by: admin.userId }))
      }))
      return { id, password_changed: true as const }
    }, requireTenantAdmin)

    const setSuperAdmin = Effect.fn("AdminUsers.setSuperAdmin")(function*(id: UserId, isSuperAdmin: boolean) {
      const admin = yield* PlatformAdmin
      yield* notSelf(admin, id)
      yield* Effect.flatMap(repo.findById(id), found)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* found(yield* users.setSuperAdmin(id, isSuperAdmin))
        yield* outbox.append(
          new DomainEvents.UserSuperAdminChanged({
            user_id: id,
            is_super_admin: isSuperAdmin,
            changed_by: admin.userId
          })
        )
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
          tenantId: user.tenant_id,
          userId: id,
          kind: "impersonation",
          impersonatorId: admin.userId,
          cookieTokenHash: null,
          lifetimeSeconds: IMPERSONATION_SECONDS
        })
        yield* sessions.issue(sessionId, { hash: hashToken(token), seconds: IMPERSONATION_SECONDS }, null)
        yield* outbox.append(
          new DomainEvents.UserImpersonated({ user_id: id, impersonator_id: admin.userId, session_id: sessionId })
        )
      }))
      return {
        access_token: token,
        token_type: "Bearer" as const,
        expires_in: IMPERSONATION_SECONDS,
        impersonation: true as const,
        user: toAuthUser(user)
      } satisfies ImpersonationToken
    }, requireTenantAdmin)

    const resetTwoFactor = Effect.fn("AdminUsers.resetTwoFactor")(function*(id: UserId) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      yield* changeable(admin, id)
      const wasEnabled = yield* db.transaction(Effect.gen(function*() {
        const wasEnabled = yield* found(yield* repo.clearTwoFactor(id))
        if (wasEnabled) {
          yield* outbox.append(new DomainEvents.UserTwoFactorReset({ user_id: id, reset_by: admin.userId }))
        }
        return wasEnabled
      }))
      return { id, two_factor_was_enabled: wasEnabled }
    }, requireTenantAdmin)

    return { setPassword, setSuperAdmin, impersonate, resetTwoFactor } as const
  })
}) {}
