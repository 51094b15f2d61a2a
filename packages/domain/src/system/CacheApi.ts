import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

const Count = Schema.Int.pipe(Schema.nonNegative())

/** A count with its description (`Count.annotations`, not a generic helper: that would lose the schema's type). */
const described = (description: string) => Count.annotations({ description })

/** A cache of the service's registry (`tenant-resolution`, `federation-switches`, `config-documents`, …). */
export const CacheName = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)).annotations({
  description: "The name of a cache, as `GET /api/v2/admin/cache/stats` lists them"
})

/** One cache of `GET /api/v2/admin/cache/stats` (decisions D17 "Cache"): the community's share, all runners. */
export const CacheStat = Schema.Struct({
  name: CacheName,
  entries: described("Entries of this community the cache holds now, on every runner together"),
  hits: described("Lookups of this community's entries answered from the cache, since the runners started"),
  misses: described("Lookups of this community's entries that had to read the database")
})
export type CacheStat = typeof CacheStat.Type

export const CacheStats = Schema.Struct({
  caches: Schema.Array(CacheStat).annotations({ description: "Every cache of the service, by name" })
})
export type CacheStats = typeof CacheStats.Type

export const ClearCache = Schema.Struct({
  cache: Schema.optionalWith(CacheName, { exact: true }).annotations({
    description: "Only this cache; every cache when absent"
  })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type ClearCache = typeof ClearCache.Type

/** The body of a clear: `{"cache": ...}`, `{}`, or none at all (an empty body arrives as `null`). */
export const ClearCachePayload = Schema.Union(ClearCache, Schema.Null).annotations({
  description: "Optional; without `cache`, every cache is cleared"
})
export type ClearCachePayload = typeof ClearCachePayload.Type

export const ClearedCache = Schema.Struct({
  name: CacheName,
  entries: described("Entries of this community removed, on every runner together")
})
export const ClearedCaches = Schema.Struct({ cleared: Schema.Array(ClearedCache) })
export type ClearedCaches = typeof ClearedCaches.Type

/** The service's caches as a community's admins see them: their community's entries only, on every runner. */
export class AdminCacheApi extends HttpApiGroup.make("adminCache")
  .annotate(OpenApi.Title, "Admin: cache")
  .annotate(OpenApi.Description, "The community's entries in the service's caches: counts, and clearing them")
  .add(
    HttpApiEndpoint.get("stats", "/api/v2/admin/cache/stats")
      .annotate(OpenApi.Summary, "Cache statistics")
      .addSuccess(DataEnvelope(CacheStats))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Entries, hits and misses of this community per cache, summed over the runners")
  )
  .add(
    HttpApiEndpoint.post("clear", "/api/v2/admin/cache/clear")
      .annotate(OpenApi.Summary, "Clear the cache")
      .annotate(AuditAction, "cache.cleared")
      .setPayload(ClearCachePayload)
      .addSuccess(DataEnvelope(ClearedCaches))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Removes this community's entries from one cache (or all) on every runner; the next lookups read afresh"
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
