import {
  AdminUserView,
  ListUsersParams,
  NotFound,
  Password,
  type Tenant,
  UpdateUser,
  type UserId,
  type UserStatus
} from "@timebank/domain"
import { AdminUsersService, decodeInput, generatePassword, UserAccounts, UserRepo } from "@timebank/server"
import { DateTime, Effect, Option, Record as Rec, Schema } from "effect"
import type { AnyCommand, Command, OptionSpec } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { allPages, asOperatorIn, positiveId, tenantOption } from "../Operator.js"
import { fields, table } from "../Render.js"

/**
 * `user …` (decisions D4): a community's accounts, through the admin users service with the operator as a
 * platform super-admin, so the admin API's rules hold (accounts with platform powers, sessions ended on suspension,
 * events in the outbox).
 */

const userJson = (u: AdminUserView) => Schema.encodeSync(AdminUserView)(u)

const userLine = (u: Pick<AdminUserView, "id" | "email" | "role" | "status">) =>
  `user ${u.id} ${u.email} (${u.role}, ${u.status})`

const tenantLabel = (t: Tenant) => `tenant ${t.id} "${t.slug}"`

const userArgument = { name: "ID|EMAIL", description: "the account, by id or e-mail" }

const option = (name: string, value: string, description: string): OptionSpec => ({
  name,
  type: "string",
  value,
  description
})

const userExits = [[ExitCode.notFound, "no such tenant, or no such account in it"]] as const

/** The id of the account `ref` names in the current tenant: an id as it is, an e-mail looked up. */
const userIdOf = (ref: string) =>
  Effect.gen(function*() {
    const id = positiveId(ref)
    if (id !== undefined) return id as UserId
    const row = yield* Effect.flatMap(UserRepo, (users) => users.findByEmail(ref))
    return yield* Option.match(row, {
      onNone: () => Effect.fail(NotFound.of("User")),
      onSome: (u) => Effect.succeed(u.id)
    })
  })

const PAGE = "100"

export const userList: Command<"services"> = {
  name: "user list",
  summary: "list a tenant's accounts, newest first",
  positionals: [],
  options: [
    tenantOption,
    option("status", "pending|active|suspended|banned", "only accounts with this status"),
    option("role", "member|broker|coordinator|admin", "only accounts with this role"),
    option("search", "TEXT", "part of the name or e-mail")
  ],
  examples: ["user list --tenant demo", "user list --tenant 7 --status pending --json"],
  exits: userExits,
  needs: "services",
  run: (_, flags) =>
    asOperatorIn(flags)(() =>
      Effect.gen(function*() {
        const filters = Rec.filter(
          { status: flags["status"], role: flags["role"], search: flags["search"] },
          (v) => v !== undefined
        )
        yield* decodeInput(ListUsersParams)(filters)
        const admin = yield* AdminUsersService
        const users = yield* allPages("accounts", (page) =>
          Effect.flatMap(
            decodeInput(ListUsersParams)({ ...filters, page: String(page), per_page: PAGE }),
            admin.list
          ))
        return {
          json: users.map(userJson),
          text: users.length === 0 ? "no accounts" : table(
            ["ID", "EMAIL", "NAME", "ROLE", "STATUS", "APPROVED", "LAST LOGIN"],
            users.map((u) => [
              String(u.id),
              u.email,
              `${u.first_name} ${u.last_name}`,
              u.role,
              u.status,
              u.is_approved ? "yes" : "no",
              u.last_login_at === null ? "-" : DateTime.formatIso(u.last_login_at)
            ])
          )
        }
      })
    )
}

export const userShow: Command<"services"> = {
  name: "user show",
  summary: "show one account",
  positionals: [userArgument],
  options: [tenantOption],
  examples: ["user show admin@demo.timebank.test --tenant demo", "user show 42 --tenant 7 --json"],
  exits: userExits,
  needs: "services",
  run: ([ref], flags) =>
    asOperatorIn(flags)(() =>
      Effect.gen(function*() {
        const user = yield* (yield* AdminUsersService).get(yield* userIdOf(ref!))
        return {
          json: userJson(user),
          text: fields([
            ["id", String(user.id)],
            ["email", user.email],
            ["name", `${user.first_name} ${user.last_name}`],
            ["role", user.role],
            ["status", user.status],
            ["approved", user.is_approved ? "yes" : "no"],
            ["super-admin", user.is_super_admin ? "yes" : "no"],
            ["password", user.has_password ? "set" : "none"],
            ["two-factor", user.two_factor_enabled ? "on" : "off"],
            ["created", DateTime.formatIso(user.created_at)],
            ["last login", user.last_login_at === null ? "-" : DateTime.formatIso(user.last_login_at)]
          ])
        }
      })
    )
}

export const userCreate: Command<"services"> = {
  name: "user create",
  summary: "create an active, approved account in a tenant (a password is generated and shown when none is given)",
  positionals: [],
  options: [
    tenantOption,
    { ...option("email", "E", "the e-mail address it signs in with"), required: true },
    { ...option("first-name", "F", "first name"), required: true },
    { ...option("last-name", "L", "last name"), required: true },
    option("password", "P", "its password, at least 8 characters (default: generated, shown once)"),
    option("role", "member|broker|coordinator|admin", "its role (default member)")
  ],
  examples: [
    "user create --tenant demo --email ada@example.org --first-name Ada --last-name Lovelace --role admin",
    "user create --tenant 7 --email bob@example.org --first-name Bob --last-name Brown --json"
  ],
  exits: [...userExits, [ExitCode.refused, "ALREADY_EXISTS: an account has this e-mail"]],
  needs: "services",
  run: (_, flags) =>
    asOperatorIn(flags)((tenant) =>
      Effect.gen(function*() {
        const input = Rec.filter({
          email: flags["email"],
          first_name: flags["first-name"],
          last_name: flags["last-name"],
          password: flags["password"],
          role: flags["role"]
        }, (value) => value !== undefined)
        const { generatedPassword, user } = yield* Effect.flatMap(UserAccounts, (accounts) => accounts.create(input))
        const json = {
          id: user.id,
          tenant_id: user.tenant_id,
          email: user.email,
          first_name: user.first_name,
          last_name: user.last_name,
          role: user.role,
          status: user.status,
          is_approved: user.is_approved,
          ...Option.match(generatedPassword, { onNone: () => ({}), onSome: (password) => ({ password }) })
        }
        const line = `created ${userLine(user)} in ${tenantLabel(tenant)}`
        return {
          json,
          text: Option.match(generatedPassword, {
            onNone: () => line,
            onSome: (password) => `${line}\npassword: ${password} (generated; shown only now)`
          })
        }
      })
    )
}

export const userSetRole: Command<"services"> = {
  name: "user set-role",
  summary: "change an account's role",
  positionals: [userArgument],
  options: [tenantOption, { ...option("role", "member|broker|coordinator|admin", "the new role"), required: true }],
  examples: ["user set-role ada@example.org --tenant demo --role coordinator"],
  exits: [...userExits, [ExitCode.refused, "FORBIDDEN: the account has platform powers"]],
  needs: "services",
  run: ([ref], flags) =>
    asOperatorIn(flags)((tenant) =>
      Effect.gen(function*() {
        const patch = yield* decodeInput(UpdateUser)({ role: flags["role"] })
        const user = yield* (yield* AdminUsersService).update(yield* userIdOf(ref!), patch)
        return { json: userJson(user), text: `${userLine(user)} in ${tenantLabel(tenant)}: role ${user.role}` }
      })
    )
}

const NewPassword = Schema.Struct({ password: Password })

export const userSetPassword: Command<"services"> = {
  name: "user set-password",
  summary: "set an account's password (generated and shown when none is given); ends its sessions",
  details: "For an account locked out or created without a password. The member is not mailed: hand the password " +
    "over yourself.",
  positionals: [userArgument],
  options: [tenantOption, option("password", "P", "the new password, at least 8 characters (default: generated)")],
  examples: [
    "user set-password ada@example.org --tenant demo",
    "user set-password 42 --tenant 7 --password 'long secret'"
  ],
  exits: [...userExits, [ExitCode.refused, "FORBIDDEN: the account has platform powers"]],
  needs: "services",
  run: ([ref], flags) =>
    asOperatorIn(flags)((tenant) =>
      Effect.gen(function*() {
        const generated = flags["password"] === undefined ? generatePassword() : undefined
        const { password } = yield* decodeInput(NewPassword)({ password: flags["password"] ?? generated })
        const id = yield* userIdOf(ref!)
        yield* (yield* AdminUsersService).setPassword(id, password)
        const line = `password set for user ${id} in ${tenantLabel(tenant)}; its sessions ended`
        return {
          json: { id, password_changed: true, ...(generated === undefined ? {} : { password: generated }) },
          text: generated === undefined ? line : `${line}\npassword: ${generated} (generated; shown only now)`
        }
      })
    )
}

type StatusChange = AdminUsersService["suspend"]

const statusCommand = (
  verb: "suspend" | "activate",
  summary: string,
  changeFor: (admin: AdminUsersService, status: UserStatus) => StatusChange
): Command<"services"> => ({
  name: `user ${verb}`,
  summary,
  positionals: [userArgument],
  options: [tenantOption],
  examples: [`user ${verb} ada@example.org --tenant demo`, `user ${verb} 42 --tenant 7 --json`],
  exits: [...userExits, [ExitCode.refused, "FORBIDDEN: the account has platform powers"]],
  needs: "services",
  run: ([ref], flags) =>
    asOperatorIn(flags)((tenant) =>
      Effect.gen(function*() {
        const admin = yield* AdminUsersService
        const user = yield* admin.get(yield* userIdOf(ref!))
        const changed = yield* changeFor(admin, user.status)(user.id)
        return {
          json: changed,
          text: `user ${changed.id} in ${tenantLabel(tenant)}: ${changed.status}` +
            (changed.is_approved ? "" : " (not approved)")
        }
      })
    )
})

export const userSuspend = statusCommand(
  "suspend",
  "suspend an account: it cannot sign in, and its sessions end now",
  (admin) => admin.suspend
)

/** A pending account is approved; a suspended or banned one is reactivated. */
export const userActivate = statusCommand(
  "activate",
  "activate an account: approve a pending one, reactivate a suspended or banned one",
  (admin, status) => status === "pending" ? admin.approve : admin.reactivate
)

export const userCommands: ReadonlyArray<AnyCommand> = [
  userList,
  userShow,
  userCreate,
  userSetRole,
  userSetPassword,
  userSuspend,
  userActivate
]
