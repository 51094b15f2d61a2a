import { HttpApiBuilder } from "@effect/platform"
import { Api, type ClearCachePayload, CurrentTenant, ok, ValidationFailed } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantCaches } from "../../platform/TenantCaches.js"

/**
 * `GET /admin/cache/stats` and `POST /admin/cache/clear` (decisions D17 "Cache"): the request's community's entries
 * in the registry's caches, counted and cleared on every runner.
 */
export const AdminCacheHttpLive = HttpApiBuilder.group(Api, "adminCache", (handlers) =>
  Effect.gen(function*() {
    const caches = yield* TenantCaches

    const stats = Effect.gen(function*() {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      return { caches: yield* caches.stats(tenant.id) }
    }).pipe(Effect.withSpan("AdminCache.stats"))

    const clear = Effect.fn("AdminCache.clear")(function*(payload: ClearCachePayload) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const name = payload?.cache
      const names = yield* caches.names
      if (name !== undefined && !names.includes(name)) {
        return yield* ValidationFailed.field("cache", `unknown cache; one of ${names.join(", ")}`)
      }
      return { cleared: yield* caches.clear(tenant.id, name ?? null) }
    })

    return handlers
      .handle("stats", () => requireTenantAdmin(Effect.map(stats, ok)))
      .handle("clear", ({ payload }) => requireTenantAdmin(Effect.map(clear(payload), ok)))
  }))
