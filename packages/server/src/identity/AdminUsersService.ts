import {
  AlreadyExists,
  CurrentTenant,
  DomainEvents,
  type ListUsersParams,
  NotFound,
  offsetMeta,
  type UpdateUser,
  type UserId,
  type UserStatus,
  type UserStatusChange
} from "@timebank/domain"
import { Clock, Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { rankedBy } from "../tenancy/config/Ranking.js"
import { RankingHealth } from "../tenancy/config/RankingHealth.js"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import { changeableIn, found, notSelf } from "./AdminUserGuards.js"
import { AdminUserOnboarding } from "./AdminUserOnboarding.js"
import { AdminUserRepo, toAdminUser } from "./AdminUserRepo.js"
import { AdminUserSecurity } from "./AdminUserSecurity.js"
import { MailOutbox } from "./MailOutbox.js"
import { PasswordResetRepo } from "./PasswordResetRepo.js"
import { profileEvents } from "./ProfileEvents.js"
import { SessionRepo } from "./SessionRepo.js"
import { UserRepo } from "./UserRepo.js"

export const DEFAULT_USERS_PER_PAGE = 20

interface StatusRule {
  readonly status: UserStatus
  /** Also marks the account approved. */
  readonly approve: boolean
  /** Ends the user's sessions at once. */
  readonly endSessions: boolean
  readonly event:
    | typeof DomainEvents.UserApproved
    | typeof DomainEvents.UserSuspended
    | typeof DomainEvents.UserBanned
    | typeof DomainEvents.UserReactivated
}

const STATUS_RULES = {
  approve: { status: "active", approve: true, endSessions: false, event: DomainEvents.UserApproved },
  suspend: { status: "suspended", approve: false, endSessions: true, event: DomainEvents.UserSuspended },
  ban: { status: "banned", approve: false, endSessions: true, event: DomainEvents.UserBanned },
  reactivate: { status: "active", approve: false, endSessions: false, event: DomainEvents.UserReactivated }
} as const satisfies Record<string, StatusRule>

/**
 * Community admins managing the users of their community (tenant admin or platform super-admin): listing, editing,
 * status and erasure here; onboarding (create, import, mails) and security (passwords, powers, impersonation) in
 * their own services, offered through this one. Every method is guarded by a typed policy; steps read the admin
 * from `TenantAdmin` / `PlatformAdmin`, so an unguarded path does not compile.
 */
export class AdminUsersService extends Effect.Service<AdminUsersService>()("AdminUsersService", {
  dependencies: [
    AdminUserOnboarding.Default,
    AdminUserSecurity.Default,
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
    const onboarding = yield* AdminUserOnboarding
    const security = yield* AdminUserSecurity

    const emailTaken = new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })

    const changeable = changeableIn(repo)

    const list = Effect.fn("AdminUsers.list")(function*(params: ListUsersParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_USERS_PER_PAGE)
      const tenant = yield* CurrentTenant
      const algorithms = yield* Effect.flatMap(TenantConfig, (config) => config.get(tenant.id, "algorithms"))
      // Offset pages carry no anchor: recency is measured from the hour, so the pages of a walk agree.
      const hour = Math.floor((yield* Clock.currentTimeMillis) / 3_600_000) * 3_600_000
      const ranked = rankedBy(algorithms.members, params.search, hour)
      const health = yield* RankingHealth
      const { rows, total } = yield* health.measure(
        tenant.id,
        "members",
        repo.list({ page, perPage, status: params.status, role: params.role, search: params.search, ranked })
      )
      return { data: rows.map(toAdminUser), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

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
          yield* outbox.append(new DomainEvents.UserUpdated({ user_id: id, fields: changed, updated_by: admin.userId }))
        }
        yield* outbox.appendAll(profileEvents(current, outcome.row, admin.userId))
        if (outcome.row.role !== current.role) {
          yield* outbox.append(
            new DomainEvents.UserRoleChanged({
              user_id: id,
              from: current.role,
              to: outcome.row.role,
              changed_by: admin.userId
            })
          )
        }
        return toAdminUser(outcome.row)
      }))
    }, requireTenantAdmin)

    /** Erases personal data and deactivates; the row stays so that ledger entries keep their account. */
    const erase = Effect.fn("AdminUsers.delete")(function*(id: UserId) {
      const admin = yield* TenantAdmin
      yield* notSelf(admin, id)
      const current = yield* changeable(admin, id)
      yield* db.transaction(Effect.gen(function*() {
        yield* found(yield* repo.erase(id))
        // Partners forget an erased member who had opted in to federation.
        if (current.federation_opt_in) {
          yield* outbox.append(new DomainEvents.MemberFederationOptedOut({ user_id: id, changed_by: admin.userId }))
        }
        yield* sessions.revokeAllOf(id)
        yield* resets.revokeAllOf(id)
        yield* mail.forgetUser(id)
        yield* outbox.append(new DomainEvents.UserErased({ user_id: id, erased_by: admin.userId }))
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
          yield* outbox.append(
            new rule.event({
              user_id: id,
              previous_status: current.status,
              status: row.status,
              changed_by: admin.userId
            })
          )
          return row
        }))
        return { id, status: row.status, is_approved: row.is_approved } satisfies UserStatusChange
      }, requireTenantAdmin)
    }

    const consents = Effect.fn("AdminUsers.consents")(function*(id: UserId) {
      yield* TenantAdmin
      yield* Effect.flatMap(repo.findById(id), found)
      return yield* repo.consents(id)
    }, requireTenantAdmin)

    return {
      list,
      create: onboarding.create,
      importCsv: onboarding.importCsv,
      importTemplate: onboarding.importTemplate,
      get,
      update,
      erase,
      approve: changeStatus("approve"),
      suspend: changeStatus("suspend"),
      ban: changeStatus("ban"),
      reactivate: changeStatus("reactivate"),
      setPassword: security.setPassword,
      sendPasswordReset: onboarding.sendPasswordReset,
      sendWelcomeEmail: onboarding.sendWelcomeEmail,
      setSuperAdmin: security.setSuperAdmin,
      impersonate: security.impersonate,
      consents,
      resetTwoFactor: security.resetTwoFactor
    } as const
  })
}) {}
