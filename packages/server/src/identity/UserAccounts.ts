import { SqlClient } from "@effect/sql"
import {
  AlreadyExists,
  CurrentTenant,
  DomainEvents,
  Email,
  Password,
  PersonName,
  Role,
  type Tenant
} from "@timebank/domain"
import { Config, ConfigError, Effect, Either, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Outbox } from "../platform/Outbox.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { decodeInput } from "../platform/Validation.js"
import { PLATFORM_TENANT_SLUG, TenantDirectory } from "../tenancy/TenantDirectory.js"
import { hashPassword } from "./Password.js"
import { toAuthUser, type UserRow } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

/** An account created for someone (operator CLI): active and approved at once, like the admin create of D4. */
export const NewAccountInput = Schema.Struct({
  email: Email,
  first_name: PersonName,
  last_name: PersonName,
  password: Schema.optionalWith(Password, { exact: true }),
  role: Schema.optionalWith(Role, { exact: true })
})
export type NewAccountInput = typeof NewAccountInput.Type

/** An account ready to be written: the password is already hashed. */
export interface HashedAccount {
  readonly email: string
  readonly passwordHash: string
  readonly firstName: string
  readonly lastName: string
  readonly role: Role
  readonly isSuperAdmin?: boolean
}

/** An account that must exist (seeds, bootstrap); nothing about an existing one is changed. */
export interface EnsuredAccount {
  readonly email: string
  readonly password: Redacted.Redacted<string>
  readonly firstName: string
  readonly lastName: string
  readonly role: Role
  readonly isSuperAdmin?: boolean
}

/** A password for accounts created without one: 128 random bits, shown once to whoever created the account. */
export const generatePassword = (): string => randomBytes(16).toString("base64url")

const emailTaken = () => new AlreadyExists({ message: "An account with this e-mail exists", field: "email" })

/**
 * Accounts created by someone other than their owner: operators, the start-up bootstrap, the demo seed and the
 * super-admin API (a new tenant's first admin). Every account made here is active and approved.
 */
export class UserAccounts extends Effect.Service<UserAccounts>()("UserAccounts", {
  dependencies: [UserRepo.Default, TenantDirectory.Default, Outbox.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UserRepo
    const directory = yield* TenantDirectory
    const outbox = yield* Outbox

    /**
     * Writes the account in the current tenant, with its `UserCreated` event; none when the e-mail is taken.
     * Joins the caller's transaction when there is one.
     */
    const insertActive = Effect.fn("UserAccounts.insertActive")(function*(account: HashedAccount) {
      const tenant = yield* CurrentTenant
      return yield* sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* users.insert({
          email: account.email,
          passwordHash: account.passwordHash,
          firstName: account.firstName,
          lastName: account.lastName,
          role: account.role,
          status: "active",
          isApproved: true,
          preferredLanguage: tenant.settings.default_language
        })
        if (Option.isNone(inserted)) return Option.none<UserRow>()
        const row = account.isSuperAdmin
          ? yield* Effect.flatMap(users.setSuperAdmin(inserted.value.id, true), Effect.orDie)
          : inserted.value
        yield* outbox.append(
          new DomainEvents.UserCreated({
            user_id: row.id,
            email: row.email,
            role: row.role,
            is_super_admin: row.is_super_admin
          })
        )
        return Option.some(row)
      })).pipe(dieOnSqlError)
    })

    /** `user create` of the CLI: a new account in the current tenant; without a password one is generated. */
    const create = Effect.fn("UserAccounts.create")(function*(input: unknown) {
      const account = yield* decodeInput(NewAccountInput)(input)
      if (yield* users.emailTaken(account.email)) return yield* emailTaken()
      const generated = account.password === undefined ? Option.some(generatePassword()) : Option.none<string>()
      const row = yield* insertActive({
        email: account.email,
        passwordHash: yield* hashPassword(account.password ?? Option.getOrThrow(generated)),
        firstName: account.first_name,
        lastName: account.last_name,
        role: account.role ?? "member"
      })
      if (Option.isNone(row)) return yield* emailTaken()
      return { user: toAuthUser(row.value), generatedPassword: generated }
    })

    /** Makes sure the account exists in the current tenant; an existing one is left exactly as it is. */
    const ensure = Effect.fn("UserAccounts.ensure")(function*(account: EnsuredAccount) {
      const existing = yield* users.findByEmail(account.email)
      if (Option.isSome(existing)) return { user: existing.value, created: false }
      const inserted = yield* insertActive({
        email: account.email,
        passwordHash: yield* hashPassword(Redacted.value(account.password)),
        firstName: account.firstName,
        lastName: account.lastName,
        role: account.role,
        ...(account.isSuperAdmin ? { isSuperAdmin: true } : {})
      })
      if (Option.isSome(inserted)) return { user: inserted.value, created: true }
      // Another process created it between our look and our insert (several runners starting together).
      const raced = yield* Effect.flatMap(users.findByEmail(account.email), Effect.orDie)
      return { user: raced, created: false }
    })

    const platformTenant: Effect.Effect<Tenant> = Effect.flatMap(
      directory.find({ _tag: "Slug", slug: PLATFORM_TENANT_SLUG }),
      Option.match({
        onNone: () => Effect.dieMessage("the platform tenant is missing (migration 0001 creates it)"),
        onSome: Effect.succeed
      })
    )

    /**
     * The platform super-admin of `BOOTSTRAP_SUPER_ADMIN_*` (decisions D3): role admin, `is_super_admin`, active
     * and approved, on the `platform` tenant. Idempotent: an account with that e-mail is never changed again.
     */
    const ensureSuperAdmin = Effect.fn("UserAccounts.ensureSuperAdmin")(function*(credentials: {
      readonly email: string
      readonly password: Redacted.Redacted<string>
    }) {
      const checked = yield* decodeInput(Schema.Struct({ email: Email, password: Password }))({
        email: credentials.email,
        password: Redacted.value(credentials.password)
      })
      const platform = yield* platformTenant
      return yield* ensure({
        email: checked.email,
        password: credentials.password,
        firstName: "Platform",
        lastName: "Administrator",
        role: "admin",
        isSuperAdmin: true
      }).pipe(Effect.provideService(CurrentTenant, platform))
    })

    return { insertActive, create, ensure, ensureSuperAdmin, platformTenant } as const
  })
}) {}

const validEmail = Schema.is(Schema.typeSchema(Email))
const validPassword = Schema.is(Password)

/**
 * `BOOTSTRAP_SUPER_ADMIN_EMAIL` and `BOOTSTRAP_SUPER_ADMIN_PASSWORD`: both or neither. Only one of them, an e-mail
 * that is not one or a password under 8 characters is a configuration error that stops the start, since the
 * operator asked for an account that cannot be made.
 */
export const BootstrapSuperAdminConfig = Config.all({
  email: Config.option(Config.string("BOOTSTRAP_SUPER_ADMIN_EMAIL")),
  password: Config.option(Config.redacted("BOOTSTRAP_SUPER_ADMIN_PASSWORD"))
}).pipe(
  Config.mapOrFail(({ email, password }) => {
    if (Option.isNone(email) && Option.isNone(password)) return Either.right(Option.none())
    if (Option.isNone(email) || Option.isNone(password)) {
      return Either.left(ConfigError.InvalidData(
        [Option.isNone(email) ? "BOOTSTRAP_SUPER_ADMIN_EMAIL" : "BOOTSTRAP_SUPER_ADMIN_PASSWORD"],
        "BOOTSTRAP_SUPER_ADMIN_EMAIL and BOOTSTRAP_SUPER_ADMIN_PASSWORD must be set together"
      ))
    }
    const address = email.value.trim()
    if (!validEmail(address)) {
      return Either.left(ConfigError.InvalidData(["BOOTSTRAP_SUPER_ADMIN_EMAIL"], "must be an e-mail address"))
    }
    if (!validPassword(Redacted.value(password.value))) {
      return Either.left(
        ConfigError.InvalidData(["BOOTSTRAP_SUPER_ADMIN_PASSWORD"], "must be at least 8 characters")
      )
    }
    return Either.right(Option.some({ email: address, password: password.value }))
  })
)

/** Creates the configured platform super-admin at start unless an account with its e-mail exists. */
export const bootstrapSuperAdmin = Effect.gen(function*() {
  const configured = yield* BootstrapSuperAdminConfig
  if (Option.isNone(configured)) return Option.none<{ readonly email: string; readonly created: boolean }>()
  // The configuration was checked against the same rules, so a refusal here is a bug.
  const { created, user } = yield* Effect.orDie((yield* UserAccounts).ensureSuperAdmin(configured.value))
  if (created) yield* Effect.logInfo("platform super-admin created").pipe(Effect.annotateLogs({ email: user.email }))
  return Option.some({ email: user.email, created })
}).pipe(Effect.withSpan("UserAccounts.bootstrapSuperAdmin"))
