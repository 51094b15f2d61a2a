import { CurrentTenant, NotFound } from "@timebank/domain"
import { TenantService, UserAccounts } from "@timebank/server"
import { Effect, Option, Record as Rec } from "effect"
import type { Command } from "../Command.js"

/** `--tenant` takes the tenant's id or its slug. */
export const findTenant = (ref: string) =>
  Effect.gen(function*() {
    const tenants = yield* TenantService
    if (/^[1-9][0-9]*$/.test(ref) && Number.isSafeInteger(Number(ref))) return yield* tenants.get(Number(ref))
    const bySlug = (yield* tenants.list).find((t) => t.slug === ref.toLowerCase())
    return yield* Option.match(Option.fromNullable(bySlug), {
      onNone: () => Effect.fail(NotFound.of("Tenant")),
      onSome: Effect.succeed
    })
  })

export const userCreate: Command<"services"> = {
  name: "user create",
  summary: "create an active, approved user in a tenant (a password is generated and shown when none is given)",
  synopsis:
    "--tenant ID|SLUG --email E --first-name F --last-name L\n[--password P] [--role member|broker|coordinator|admin]",
  positionals: [],
  flags: ["tenant", "email", "first-name", "last-name", "password", "role"],
  requiredFlags: ["tenant", "email", "first-name", "last-name"],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const tenant = yield* findTenant(String(flags["tenant"]))
      const input = Rec.filter({
        email: flags["email"],
        first_name: flags["first-name"],
        last_name: flags["last-name"],
        password: flags["password"],
        role: flags["role"]
      }, (value) => value !== undefined)
      const { generatedPassword, user } = yield* Effect.flatMap(UserAccounts, (accounts) => accounts.create(input))
        .pipe(Effect.provideService(CurrentTenant, tenant))
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
      const line = `created user ${user.id} ${user.email} (${user.role}) in tenant ${tenant.id} "${tenant.slug}"`
      return {
        json,
        text: Option.match(generatedPassword, {
          onNone: () => line,
          onSome: (password) => `${line}\npassword: ${password} (generated; shown only now)`
        })
      }
    })
}
