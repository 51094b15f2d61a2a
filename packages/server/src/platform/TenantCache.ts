import { Clock, Deferred, Duration, Effect, Exit, FiberId } from "effect"

/** What a cache holds and did for one tenant on this runner. */
export interface CacheCounts {
  entries: number
  hits: number
  misses: number
}

export interface TenantCacheOptions<K extends string | number, V, E = never> {
  /** Unique in the registry; what `GET /admin/cache/stats` shows and `POST /admin/cache/clear` names. */
  readonly name: string
  readonly capacity: number
  readonly timeToLive: Duration.DurationInput
  readonly lookup: (key: K) => Effect.Effect<V, E>
  /** The tenant an entry belongs to; `null` for entries of no tenant (a negative lookup, a platform-wide value). */
  readonly tenantOf: (key: K, value: V) => number | null
}

interface Slot<V, E> {
  readonly deferred: Deferred.Deferred<V, E>
  /** `undefined` while the lookup runs. */
  tenant: number | null | undefined
  expiresAt: number
  /** The value once the lookup succeeded: a hit answers it without waiting on the deferred. */
  found: { readonly value: V } | undefined
}

/**
 * One bounded cache with a time to live that knows whose its entries are: counts per tenant (entries, hits,
 * misses) and drops one tenant's entries. Concurrent gets of a key share one lookup; failures are not cached; a
 * lookup whose key was dropped meanwhile answers its caller but is not kept (it may have read what was replaced).
 * This is the runner-local part; `TenantCaches` registers it and carries drops to the other runners.
 */
export const makeLocalCache = <K extends string | number, V, E>(options: TenantCacheOptions<K, V, E>) => {
  const ttl = Duration.toMillis(Duration.decode(options.timeToLive))
  const slots = new Map<K, Slot<V, E>>()
  const counts = new Map<number | null, CacheCounts>()

  const countsOf = (tenant: number | null) => {
    let c = counts.get(tenant)
    if (c === undefined) counts.set(tenant, c = { entries: 0, hits: 0, misses: 0 })
    return c
  }

  const remove = (key: K, slot: Slot<V, E>) => {
    slots.delete(key)
    if (slot.tenant !== undefined) countsOf(slot.tenant).entries--
  }

  const evictOverCapacity = () => {
    for (const [key, slot] of slots) {
      if (slots.size <= options.capacity) return
      remove(key, slot)
    }
  }

  const settle = (key: K, slot: Slot<V, E>, exit: Exit.Exit<V, E>, now: number) => {
    if (Exit.isSuccess(exit)) {
      const tenant = options.tenantOf(key, exit.value)
      countsOf(tenant).misses++
      if (slots.get(key) === slot) {
        slot.tenant = tenant
        slot.expiresAt = now + ttl
        slot.found = { value: exit.value }
        countsOf(tenant).entries++
      }
    } else if (slots.get(key) === slot) {
      slots.delete(key)
    }
    return Deferred.done(slot.deferred, exit)
  }

  const miss = (key: K): Effect.Effect<V, E> => {
    const slot: Slot<V, E> = {
      deferred: Deferred.unsafeMake<V, E>(FiberId.none),
      tenant: undefined,
      expiresAt: Number.POSITIVE_INFINITY,
      found: undefined
    }
    slots.set(key, slot)
    evictOverCapacity()
    // Uninterruptible: an interrupted caller must not leave the callers sharing its lookup waiting forever.
    const run = Effect.exit(options.lookup(key)).pipe(
      Effect.flatMap((exit) => Effect.flatMap(Clock.currentTimeMillis, (now) => settle(key, slot, exit, now))),
      Effect.uninterruptible
    )
    return Effect.zipRight(run, Deferred.await(slot.deferred))
  }

  const hit = (key: K, slot: Slot<V, E>): Effect.Effect<V, E> => {
    // Most recently used last: eviction takes the first.
    slots.delete(key)
    slots.set(key, slot)
    if (slot.found !== undefined) {
      countsOf(slot.tenant ?? null).hits++
      return Effect.succeed(slot.found.value)
    }
    return Effect.tap(Deferred.await(slot.deferred), (value) => {
      countsOf(options.tenantOf(key, value)).hits++
    })
  }

  const get = (key: K): Effect.Effect<V, E> =>
    Effect.clockWith((clock) => {
      const now = clock.unsafeCurrentTimeMillis()
      const slot = slots.get(key)
      if (slot !== undefined && slot.expiresAt > now) return hit(key, slot)
      if (slot !== undefined) remove(key, slot)
      return miss(key)
    })

  /** Drops the entries of `tenant` (null: of no tenant); answers how many were dropped. */
  const dropTenant = (tenant: number | null) => {
    let dropped = 0
    for (const [key, slot] of slots) {
      if (slot.tenant === tenant) {
        remove(key, slot)
        dropped++
      }
    }
    return dropped
  }

  /** Drops every entry, pending lookups included (what a runner does when it may have missed drops). */
  const dropAll = () => {
    for (const [key, slot] of slots) remove(key, slot)
  }

  /** Drops expired entries, so that entry counts are true without waiting for a get of each key. */
  const sweep = (now: number) => {
    for (const [key, slot] of slots) if (slot.expiresAt <= now) remove(key, slot)
  }

  return {
    name: options.name,
    get,
    invalidate: (key: K) =>
      Effect.sync(() => {
        const slot = slots.get(key)
        if (slot !== undefined) remove(key, slot)
      }),
    dropTenant,
    dropAll,
    sweep,
    /** The counts of each tenant (never of `null`), as they are now. */
    counts: (): ReadonlyArray<readonly [number, Readonly<CacheCounts>]> =>
      [...counts].flatMap(([tenant, c]) => (tenant === null ? [] : [[tenant, { ...c }] as const])),
    countsOf: (tenant: number): Readonly<CacheCounts> => ({ ...countsOf(tenant) })
  } as const
}

/** What the registry sees of a cache, whatever its keys and values. */
export interface RegisteredCache {
  readonly name: string
  readonly dropTenant: (tenant: number | null) => number
  readonly dropAll: () => void
  readonly sweep: (now: number) => void
  readonly counts: () => ReadonlyArray<readonly [number, Readonly<CacheCounts>]>
  readonly countsOf: (tenant: number) => Readonly<CacheCounts>
}
