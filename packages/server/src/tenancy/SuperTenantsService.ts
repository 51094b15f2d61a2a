import { SqlClient } from "@effect/sql"
import {
  CreatedTenant,
  type CreateTenantWithAdmin,
  CurrentTenant,
  offsetMeta,
  type Tenant,
  TenantDetails,
  type UpdateTenant,
  ValidationFailed
} from "@timebank/domain"
import { Effect } from "effect"
import { PlatformAdmin } from "../platform/Policy.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { FirstAdminAccounts } from "./FirstAdminAccounts.js"
import { PLATFORM_TENANT_SLUG, TenantDirectory } from "./TenantDirectory.js"
import { TenantRepo } from "./TenantRepo.js"
import { TenantService } from "./TenantService.js"

export const DEFAULT_TENANTS_PER_PAGE = 20

export const toDetails = (t: Tenant): TenantDetails =>
  TenantDetails.make({
    id: t.id,
    slug: t.slug,
    name: t.name,
    domain: t.domain,
    status: t.status,
    timezone: t.timezone,
    features: t.effectiveFeatures(),
    settings: t.settings,
    created_at: t.created_at,
    updated_at: t.updated_at
  })

/**
 * The super-admin API over communities (decisions D3). Every method needs `PlatformAdmin`, which only
 * `requirePlatformAdmin` provides.
 */
export class SuperTenantsService extends Effect.Service<SuperTenantsService>()("SuperTenantsService", {
  dependencies: [TenantService.Default, TenantRepo.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tenants = yield* TenantService
    const repo = yield* TenantRepo
    const directory = yield* TenantDirectory
    const admins = yield* FirstAdminAccounts

    /** A community and its first admin, in one transaction: there is never a tenant nobody can administer. */
    const create = Effect.fn("SuperTenants.create")(function*(input: CreateTenantWithAdmin) {
      yield* PlatformAdmin
      const { admin, ...fields } = input
      // Hashing takes ~100 ms; done before the transaction so it holds no connection meanwhile.
      const writeAdmin = yield* admins.prepare(admin)
      const { tenant, user } = yield* sql.withTransaction(Effect.gen(function*() {
        const tenant = yield* tenants.create(fields)
        const user = yield* writeAdmin.pipe(Effect.provideService(CurrentTenant, tenant))
        return { tenant, user }
      })).pipe(dieOnSqlError)
      // TenantService cleared the cache inside our transaction; a lookup since then may have cached "no tenant".
      yield* directory.forgetUnknown
      return CreatedTenant.make({
        ...toDetails(tenant),
        admin: { id: user.id, email: user.email }
      })
    })

    const list = Effect.fn("SuperTenants.list")(function*(page: number, perPage: number) {
      yield* PlatformAdmin
      const { tenants: rows, total } = yield* repo.page(perPage, (page - 1) * perPage)
      return { data: rows.map(toDetails), meta: offsetMeta(page, perPage, total) }
    })

    const get = Effect.fn("SuperTenants.get")(function*(id: number) {
      yield* PlatformAdmin
      return toDetails(yield* tenants.get(id))
    })

    const update = Effect.fn("SuperTenants.update")(function*(id: number, patch: UpdateTenant) {
      yield* PlatformAdmin
      const current = yield* tenants.get(id)
      // Suspending the platform would lock every super-admin out of this very API.
      if (current.slug === PLATFORM_TENANT_SLUG && patch.status === "suspended") {
        return yield* ValidationFailed.field("status", "the platform tenant cannot be suspended")
      }
      return toDetails(yield* tenants.update(id, patch))
    })

    return { create, list, get, update } as const
  })
}) {}
