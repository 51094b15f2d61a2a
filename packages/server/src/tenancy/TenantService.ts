import { SqlClient } from "@effect/sql"
import {
  AlreadyExists,
  CreateTenant,
  DomainEvents,
  ModulesInput,
  NotFound,
  type Tenant,
  TenantPublic,
  UpdateTenant,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantCaches } from "../platform/TenantCaches.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { decodeInput } from "../platform/Validation.js"
import { TenantDirectory } from "./TenantDirectory.js"
import { TenantRepo } from "./TenantRepo.js"

/**
 * A change of a tenant as operators and admins make it: D3's fields, and the module switches (decisions D17) that
 * only the admin configuration changes (the super-admin API's payload does not offer them).
 */
const TenantChange = Schema.Struct({
  ...UpdateTenant.fields,
  modules: Schema.optionalWith(ModulesInput, { exact: true })
})

/** Creating, listing and changing tenants: operators (CLI) now, the super-admin API later. */
export class TenantService extends Effect.Service<TenantService>()("TenantService", {
  dependencies: [TenantRepo.Default, TenantDirectory.Default, TenantCaches.Default, Outbox.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TenantRepo
    const directory = yield* TenantDirectory
    const caches = yield* TenantCaches
    const outbox = yield* Outbox

    const ensureDomainFree = (domain: string | null | undefined, exceptId: number | null) =>
      domain
        ? Effect.flatMap(repo.domainTaken(domain, exceptId), (taken) =>
          taken
            ? Effect.fail(new AlreadyExists({ message: "Another tenant uses this domain", field: "domain" }))
            : Effect.void)
        : Effect.void

    const create = Effect.fn("Tenants.create")(function*(input: unknown) {
      const t = yield* decodeInput(CreateTenant)(input)
      yield* ensureDomainFree(t.domain, null)
      const created = yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* repo.insert({
          slug: t.slug,
          name: t.name,
          domain: t.domain ?? null,
          timezone: t.timezone ?? "UTC",
          features: t.features ?? {},
          settings: t.settings ?? {}
        })
        if (Option.isNone(row)) {
          return yield* new AlreadyExists({ message: `A tenant with slug ${t.slug} exists`, field: "slug" })
        }
        yield* outbox.appendFor(
          row.value.id,
          new DomainEvents.TenantCreated({ tenant_id: row.value.id, slug: row.value.slug })
        )
        return row.value
      })).pipe(dieOnSqlError)
      yield* directory.forgetUnknown
      return created
    })

    const get = Effect.fn("Tenants.get")(function*(id: number) {
      return yield* Effect.flatten(Effect.map(
        repo.findById(id),
        Option.match({
          onNone: () => Effect.fail(NotFound.of("Tenant")),
          onSome: Effect.succeed
        })
      ))
    })

    const update = Effect.fn("Tenants.update")(function*(id: number, input: unknown) {
      const patch = yield* decodeInput(TenantChange)(input)
      if (Object.keys(patch).length === 0) {
        return yield* new ValidationFailed({ issues: [{ message: "nothing to change" }] })
      }
      yield* ensureDomainFree(patch.domain, id)
      const updated = yield* repo.update(id, patch)
      // Features, modules and settings are read from the resolved tenant: the change must show on the next request,
      // on every runner. Lookups that found no tenant go too: the new slug or domain may be one of them.
      yield* Effect.zipRight(caches.invalidateTenant(id), directory.forgetUnknown)
      return yield* Option.match(updated, { onNone: () => Effect.fail(NotFound.of("Tenant")), onSome: Effect.succeed })
    })

    /** The demo community that `npm start` and `cli seed demo` provide; creating it again changes nothing. */
    const ensureDemo = Effect.fn("Tenants.ensureDemo")(function*() {
      const existing = yield* repo.findBySlug("demo")
      if (Option.isSome(existing)) return { tenant: existing.value, created: false }
      const tenant = yield* create({
        slug: "demo",
        name: "Demo Time Bank",
        settings: { registration_requires_approval: false, starting_balance: 5 }
      }).pipe(
        Effect.catchTag("AlreadyExists", () => Effect.flatMap(repo.findBySlug("demo"), Effect.orDie)),
        Effect.catchTag("ValidationFailed", Effect.die)
      )
      return { tenant, created: true }
    })

    return { create, get, update, list: repo.list, ensureDemo } as const
  })
}) {}

export const toPublic = (t: Tenant): TenantPublic =>
  TenantPublic.make({
    id: t.id,
    slug: t.slug,
    name: t.name,
    timezone: t.timezone,
    default_language: t.settings.default_language,
    features: t.effectiveFeatures()
  })
