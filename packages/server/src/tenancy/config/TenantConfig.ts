import { type ConfigArea, ConfigAreas, type ConfigDocument } from "@timebank/domain"
import { Duration, Effect, Either, Schema } from "effect"
import { makeTenantCache, TenantCaches } from "../../platform/TenantCaches.js"
import { TenantConfigRepo } from "./TenantConfigRepo.js"

/**
 * How long a runner reuses a tenant's documents; a change made through {@link TenantConfig.store} is seen at once,
 * on every runner (the cache bus); this bounds a copy whose drop was lost.
 */
const CONFIG_TTL = Duration.seconds(30)

/** The registry's name of the configuration documents cache. */
export const CONFIG_CACHE = "config-documents"

type Documents = { readonly [A in ConfigArea]: ConfigDocument<A> }

/** A stored document merged over the area's defaults; one that no longer validates falls back to the defaults. */
const documentOf = <A extends ConfigArea>(area: A, stored: unknown): ConfigDocument<A> => {
  const { defaults, schema } = ConfigAreas[area]
  if (stored === undefined || stored === null || typeof stored !== "object") return defaults as ConfigDocument<A>
  const merged = Schema.decodeUnknownEither(schema as Schema.Schema<ConfigDocument<A>, unknown>)({
    ...defaults,
    ...stored
  })
  return Either.getOrElse(merged, () => defaults as ConfigDocument<A>)
}

/**
 * A community's configuration documents (decisions D17 "Config"), read by the features they configure (uploads,
 * feed order, the public tenant) and written by its admins. Reads are cached per tenant on each runner; a write
 * drops the tenant's copy on every runner.
 */
export class TenantConfig extends Effect.Service<TenantConfig>()("TenantConfig", {
  dependencies: [TenantConfigRepo.Default, TenantCaches.Default],
  effect: Effect.gen(function*() {
    const repo = yield* TenantConfigRepo
    const load = (tenantId: number) =>
      Effect.map(repo.documentsOf(tenantId), (stored) =>
        Object.fromEntries(
          (Object.keys(ConfigAreas) as Array<ConfigArea>).map((area) => [area, documentOf(area, stored.get(area))])
        ) as unknown as Documents)
    const cache = yield* makeTenantCache({
      name: CONFIG_CACHE,
      capacity: 10_000,
      timeToLive: CONFIG_TTL,
      lookup: load,
      tenantOf: (tenantId) => tenantId
    })

    /** Every area of a tenant with the defaults applied. */
    const all = (tenantId: number): Effect.Effect<Documents> => cache.get(tenantId)

    const get = <A extends ConfigArea>(tenantId: number, area: A): Effect.Effect<ConfigDocument<A>> =>
      Effect.map(all(tenantId), (docs) => docs[area])

    /** Stores a whole, already validated document of an area. */
    const store = <A extends ConfigArea>(tenantId: number, area: A, document: ConfigDocument<A>, actorId: number) =>
      repo.store(tenantId, area, document, actorId).pipe(Effect.zipRight(cache.invalidateTenant(tenantId)))

    /** Drops the tenant's documents on every runner. */
    return { all, get, store, invalidate: (tenantId: number) => cache.invalidateTenant(tenantId) } as const
  })
}) {}
