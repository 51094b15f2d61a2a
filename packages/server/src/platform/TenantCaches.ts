import { Clock, Deferred, Effect, Either, Schedule, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { busChannel, type BusEvent, busTransportFrom, makeBus } from "./Bus.js"
import { CacheRunnerStats, type RunnerStatsRow } from "./CacheRunnerStats.js"
import { makeLocalCache, type RegisteredCache, type TenantCacheOptions } from "./TenantCache.js"

export type { TenantCacheOptions } from "./TenantCache.js"

/** A registered cache, as the service that owns it uses it. */
export interface TenantCache<K extends string | number, V, E = never> {
  readonly name: string
  readonly get: (key: K) => Effect.Effect<V, E>
  /** Drops one key on this runner. */
  readonly invalidate: (key: K) => Effect.Effect<void>
  /** Drops the tenant's entries (`null`: entries of no tenant) on every runner. */
  readonly invalidateTenant: (tenantId: number | null) => Effect.Effect<void>
}

/** What `GET /admin/cache/stats` shows of one cache: the tenant's entries and lookups, summed over the runners. */
export interface CacheStats {
  readonly name: string
  readonly entries: number
  readonly hits: number
  readonly misses: number
}

/** What a clear removed from one cache, on every runner. */
export interface ClearedCache {
  readonly name: string
  readonly entries: number
}

/** A drop every runner makes: the entries of `tenant` (null: of no tenant) in `cache` (null: in every cache). */
const DropMessage = Schema.parseJson(Schema.Struct({
  tenant: Schema.NullOr(Schema.Number),
  cache: Schema.NullOr(Schema.String),
  from: Schema.String
}))
const encodeDrop = Schema.encodeSync(DropMessage)
const decodeDrop = Schema.decodeUnknownEither(DropMessage)

/** How often a runner writes the counts that changed; a clear writes at once. */
const FLUSH_EVERY = "1 second"
/** How often a runner refreshes its rows while nothing changes (well inside the live window). */
const HEARTBEAT_EVERY = "10 seconds"
/** How long a clear waits for the other runners' rows to show it. */
const CLEAR_WAIT = "2 seconds"
/** How long start-up waits for the bus (a bus still away only delays other runners' drops until the TTLs). */
const FIRST_SUBSCRIPTION_WAIT = "5 seconds"

const signature = (r: RunnerStatsRow) => `${r.entries}/${r.hits}/${r.misses}`
const rowKey = (tenantId: number, cache: string) => `${tenantId}\u0000${cache}`

/**
 * The registry of the service's caches (decisions D17 "Cache"). Every cache of tenant data is made here, so it
 * counts per tenant and drops a tenant's entries on every runner: a drop is applied here and published on the
 * cache bus (`CACHE_BUS`: Redis when `REDIS_URL` is set, PostgreSQL LISTEN/NOTIFY otherwise). Each runner writes
 * its per-tenant counts to `cache_runner_stats` under a random runner id, so stats add up every live runner.
 */
export class TenantCaches extends Effect.Service<TenantCaches>()("TenantCaches", {
  dependencies: [CacheRunnerStats.Default],
  scoped: Effect.gen(function*() {
    const runnerId = randomUUID()
    const repo = yield* CacheRunnerStats
    const transport = yield* busTransportFrom("CACHE_BUS")
    const bus = yield* makeBus({ transport, channel: yield* busChannel(transport, "cache"), name: "cache" })
    const caches = new Map<string, RegisteredCache>()
    const flushed = new Map<string, string>()
    const flushLock = yield* Effect.makeSemaphore(1)

    const chosen = (cache: string | null) => [...caches.values()].filter((c) => cache === null || c.name === cache)

    const changedRows = (now: number) =>
      [...caches.values()].flatMap((c) => {
        c.sweep(now)
        return c.counts().map(([tenantId, counts]): RunnerStatsRow => ({ tenantId, cache: c.name, ...counts }))
      }).filter((row) => flushed.get(rowKey(row.tenantId, row.cache)) !== signature(row))

    /** Writes this runner's counts that changed since the last write. */
    const flush = flushLock.withPermits(1)(Effect.gen(function*() {
      const rows = changedRows(yield* Clock.currentTimeMillis)
      yield* repo.upsert(runnerId, rows)
      for (const row of rows) flushed.set(rowKey(row.tenantId, row.cache), signature(row))
    })).pipe(Effect.catchAllCause((cause) => Effect.logWarning("cache stats not written", cause)))

    const dropHere = (tenant: number | null, cache: string | null) =>
      chosen(cache).map((c) => ({ name: c.name, entries: c.dropTenant(tenant) }))

    const publishDrop = (tenant: number | null, cache: string | null) =>
      bus.publish(encodeDrop({ tenant, cache, from: runnerId }))

    const invalidate = (tenant: number | null, cache: string | null = null) =>
      Effect.suspend(() => {
        dropHere(tenant, cache)
        return publishDrop(tenant, cache)
      })

    const heard = (event: BusEvent) => {
      if (event._tag === "Connected") {
        // Drops published while this runner was not listening are lost: forget everything instead.
        for (const c of caches.values()) c.dropAll()
        return flush
      }
      const message = decodeDrop(event.payload)
      if (Either.isLeft(message)) return Effect.logWarning("cache bus: unreadable message ignored")
      if (message.right.from === runnerId) return Effect.void
      dropHere(message.right.tenant, message.right.cache)
      return flush
    }

    // Registered first, so it runs after the fibers below have stopped: no flush writes rows back afterwards.
    yield* Effect.addFinalizer(() =>
      repo.forget(runnerId).pipe(
        Effect.timeout("2 seconds"),
        Effect.catchAllCause((cause) => Effect.logWarning("cache stats of this runner not deleted", cause))
      )
    )
    const subscribed = yield* Deferred.make<void>()
    yield* bus.events.pipe(
      Stream.tap((event) => event._tag === "Connected" ? Deferred.succeed(subscribed, undefined) : Effect.void),
      Stream.runForEach(heard),
      Effect.forkScoped
    )
    yield* flush.pipe(Effect.repeat(Schedule.spaced(FLUSH_EVERY)), Effect.forkScoped)
    yield* repo.heartbeat(runnerId).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("cache stats heartbeat failed", cause)),
      Effect.repeat(Schedule.spaced(HEARTBEAT_EVERY)),
      Effect.forkScoped
    )
    yield* Deferred.await(subscribed).pipe(
      Effect.timeout(FIRST_SUBSCRIPTION_WAIT),
      Effect.catchAll(() => Effect.logWarning(`cache bus (${transport}) not reachable yet; drops follow once it is`))
    )

    /** Makes and registers a cache; its name must be unique in the process. */
    const register = <K extends string | number, V, E = never>(
      options: TenantCacheOptions<K, V, E>
    ): Effect.Effect<TenantCache<K, V, E>> =>
      Effect.suspend(() => {
        if (caches.has(options.name)) return Effect.dieMessage(`cache ${options.name} is registered twice`)
        const local = makeLocalCache(options)
        caches.set(options.name, local)
        return Effect.succeed({
          name: options.name,
          get: local.get,
          invalidate: local.invalidate,
          invalidateTenant: (tenantId: number | null) => invalidate(tenantId, options.name)
        })
      })

    /** The tenant's counts per cache, every registered cache listed, summed over this and the other live runners. */
    const stats = (tenantId: number): Effect.Effect<ReadonlyArray<CacheStats>> =>
      Effect.gen(function*() {
        yield* flush
        const others = new Map((yield* repo.othersOf(runnerId, tenantId)).map((row) => [row.cache, row]))
        return [...caches.values()].map((c): CacheStats => {
          const here = c.countsOf(tenantId)
          const there = others.get(c.name) ?? { entries: 0, hits: 0, misses: 0 }
          return {
            name: c.name,
            entries: here.entries + there.entries,
            hits: here.hits + there.hits,
            misses: here.misses + there.misses
          }
        }).sort((a, b) => a.name.localeCompare(b.name))
      })

    /** Waits (a while at most) until no other live runner's rows hold entries of the tenant in `names`. */
    const othersCleared = (tenantId: number, names: ReadonlyArray<string>) =>
      repo.othersHolding(runnerId, tenantId, names).pipe(
        Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (n) => n === 0 }),
        Effect.timeoutOption(CLEAR_WAIT),
        Effect.asVoid
      )

    /**
     * Drops the tenant's entries of one cache (or all) here and on every other runner; answers the entries removed
     * per cache, all runners together, once the other runners report the drop (or the wait is over).
     */
    const clear = (tenantId: number, cache: string | null = null): Effect.Effect<ReadonlyArray<ClearedCache>> =>
      Effect.gen(function*() {
        const before = new Map((yield* repo.othersOf(runnerId, tenantId)).map((row) => [row.cache, row.entries]))
        const here = dropHere(tenantId, cache)
        yield* publishDrop(tenantId, cache)
        yield* flush
        yield* othersCleared(tenantId, here.map((c) => c.name))
        return here.map((c) => ({ name: c.name, entries: c.entries + (before.get(c.name) ?? 0) }))
          .sort((a, b) => a.name.localeCompare(b.name))
      })

    return {
      runnerId,
      transport,
      register,
      /** The names of the registered caches. */
      names: Effect.sync(() => [...caches.keys()].sort()),
      stats,
      clear,
      /** Drops the tenant's entries (`null`: entries of no tenant) in every cache, on every runner. */
      invalidateTenant: (tenantId: number | null) => invalidate(tenantId)
    } as const
  })
}) {}

/** A cache of the registry (see {@link TenantCaches}). */
export const makeTenantCache = <K extends string | number, V, E = never>(options: TenantCacheOptions<K, V, E>) =>
  Effect.flatMap(TenantCaches, (registry) => registry.register(options))
