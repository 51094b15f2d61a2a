import { assert } from "@effect/vitest"
import type { CacheStat } from "@timebank/domain"
import { Effect } from "effect"
import { apiClient, expectStatus } from "../fixtures/client.js"
import type { Community } from "../fixtures/community.js"
import { rawRequest } from "../fixtures/TestApp.js"

/** Every cache the service registers, as the stats list them (by name). */
export const CACHES = ["config-documents", "federation-switches", "tenant-resolution"]

export type Stats = Record<string, CacheStat>

/** `GET /admin/cache/stats` on the current server, by cache name. */
export const statsOf = (headers: Record<string, string>) =>
  Effect.gen(function*() {
    const client = yield* apiClient(headers)
    const res = yield* client.adminCache.stats({ withResponse: true }).pipe(expectStatus(200))
    return Object.fromEntries(res.data.caches.map((c) => [c.name, c])) as Stats
  })

/** `POST /admin/cache/clear` on the current server: what it says it removed. */
export const clearAs = (headers: Record<string, string>, cache?: string) =>
  Effect.gen(function*() {
    const client = yield* apiClient(headers)
    const res = yield* client.adminCache.clear({ payload: cache === undefined ? {} : { cache }, withResponse: true })
      .pipe(expectStatus(200))
    return res.data.cleared
  })

/**
 * Lookups that go through the caches: the public tenant by its slug (tenant resolution, then the configuration
 * documents it shows) and a member's federated browse list (the federation switches; 503 while federation is off).
 */
export const useCaches = (c: Community, slugRequests = 2) =>
  Effect.gen(function*() {
    for (let i = 0; i < slugRequests; i++) {
      const res = yield* rawRequest("GET", "/api/v2/tenant", { headers: { "x-tenant-slug": c.tenant.slug } })
      assert.strictEqual(res.status, 200, res.text)
    }
    const browse = yield* rawRequest("GET", "/api/v2/federation/listings", { headers: c.memberHeaders })
    assert.strictEqual(browse.status, 503, browse.text)
  })
