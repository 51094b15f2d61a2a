import { type Tenant, TenantRequired, TenantResolutionFailed } from "@timebank/domain"
import { Duration, Effect, Option } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { makeTenantCache, TenantCaches } from "../platform/TenantCaches.js"
import { TenantRepo } from "./TenantRepo.js"
import { type TenantRef, tenantRefOf } from "./TenantResolution.js"

/** The tenant of the platform's own super-admins (migration 0001 creates it). */
export const PLATFORM_TENANT_SLUG = "platform"

/** How long a resolved tenant is reused before it is read again; bounds how stale a suspension can be. */
const TENANT_TTL = Duration.seconds(5)

/** The tenant of a request, or why there is none. */
type Resolution = Effect.Effect<Tenant, TenantRequired | TenantResolutionFailed>

/** The registry's name of the tenant resolution cache. */
export const TENANT_CACHE = "tenant-resolution"

/**
 * Resolves the tenant of a request. Every request needs it, so lookups are cached for a few seconds: resolving
 * costs no database round trip on the hot path. A tenant write drops the tenant's entries on every runner
 * (`TenantCaches.invalidateTenant`); an entry by slug or domain belongs to the tenant it found, one that found
 * nothing to no tenant.
 */
export class TenantDirectory extends Effect.Service<TenantDirectory>()("TenantDirectory", {
  dependencies: [TenantRepo.Default, TenantCaches.Default],
  effect: Effect.gen(function*() {
    const repo = yield* TenantRepo
    const { baseDomain } = yield* AppConfig

    const read = (key: string): Effect.Effect<Option.Option<Tenant>> => {
      const [kind, value = ""] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)]
      switch (kind) {
        case "id":
          return /^[1-9]\d{0,15}$/.test(value) ? repo.findById(Number(value)) : Effect.succeedNone
        case "slug":
          return repo.findBySlug(value)
        default:
          return repo.findByDomain(value)
      }
    }
    const lookup = (key: string) => Effect.withSpan(read(key), "TenantDirectory.lookup", { captureStackTrace: false })
    const cache = yield* makeTenantCache({
      name: TENANT_CACHE,
      capacity: 10_000,
      timeToLive: TENANT_TTL,
      lookup,
      tenantOf: (_key, tenant) => Option.isSome(tenant) ? tenant.value.id : null
    })

    const find = (ref: TenantRef): Effect.Effect<Option.Option<Tenant>> => {
      switch (ref._tag) {
        case "Id":
          return cache.get(`id:${ref.id}`)
        case "Slug":
          return cache.get(`slug:${ref.slug}`)
        case "Host":
          return Option.match(ref.subdomainSlug, {
            onSome: (slug) => cache.get(`slug:${slug}`),
            onNone: () => cache.get(`domain:${ref.host}`)
          })
      }
    }

    /** An unknown custom host is not an answer about a tenant, so it reads as "no tenant named". */
    const namesNothing = (ref: TenantRef) => ref._tag === "Host" && Option.isNone(ref.subdomainSlug)

    // Every request resolves its tenant, nearly always from the cache: no generator and no span on this path (the
    // lookup of a miss has its span).
    const resolve = (headers: Readonly<Record<string, string | undefined>>): Resolution => {
      const ref = tenantRefOf(headers, baseDomain)
      if (Option.isNone(ref)) {
        return Effect.fail(
          new TenantRequired({
            message: "No tenant given: send X-Tenant-ID or X-Tenant-Slug, or use the tenant's host"
          })
        )
      }
      return Effect.flatMap(find(ref.value), (tenant): Resolution => {
        if (Option.isNone(tenant) && namesNothing(ref.value)) {
          return Effect.fail(new TenantRequired({ message: `The host ${headers["host"]} is not a tenant's address` }))
        }
        if (Option.isNone(tenant) || tenant.value.status !== "active") {
          return Effect.fail(new TenantResolutionFailed({ message: "No active tenant matches the request" }))
        }
        return Effect.succeed(tenant.value)
      })
    }

    /**
     * A tenant by id, read fresh (not from the request cache): work outside a request (subscribers, reminder
     * delivery) must see a suspension or a settings change at once.
     */
    const findById = (id: number): Effect.Effect<Option.Option<Tenant>> => repo.findById(id)

    return {
      resolve,
      find,
      findById,
      /** Forgets, on every runner, the lookups that found no tenant (a new slug or domain may match now). */
      forgetUnknown: cache.invalidateTenant(null)
    } as const
  })
}) {}
