import { RateLimiter } from "@effect/experimental"
import { Duration, Effect, Layer, Schedule } from "effect"

/** Most counters one process keeps (fixed windows and token buckets together): ~200 bytes each, ~20 MB at most. */
export const MEMORY_RATE_LIMIT_MAX_ENTRIES = 100_000

/** How often expired counters are swept out (on access, and by a background sweep while the layer lives). */
export const MEMORY_RATE_LIMIT_SWEEP_INTERVAL = Duration.seconds(10)

export interface MemoryRateLimitStoreOptions {
  /** Hard cap on counters; past it the least recently used are evicted first. */
  readonly maxEntries?: number | undefined
  /** A full sweep of expired counters runs at most this often. */
  readonly sweepInterval?: Duration.DurationInput | undefined
}

interface FixedCounter {
  count: number
  expiresAt: number
}

interface Bucket {
  tokens: number
  lastRefill: number
  /** When the bucket is full again, so that dropping it changes nothing. */
  fullAt: number
}

type Entry =
  | { readonly kind: "fixed"; readonly counter: FixedCounter }
  | { readonly kind: "bucket"; readonly bucket: Bucket }

const expiresAt = (entry: Entry) => entry.kind === "fixed" ? entry.counter.expiresAt : entry.bucket.fullAt

/** The store plus what tests and metrics need to see of it. */
export interface MemoryRateLimitStore {
  readonly store: RateLimiter.RateLimiterStore["Type"]
  /** Counters held right now. */
  readonly size: Effect.Effect<number>
  /** Drops every expired counter now; returns how many went. */
  readonly sweep: Effect.Effect<number>
}

/**
 * A bounded in-memory `RateLimiterStore` (used when `REDIS_URL` is not set). It counts exactly like
 * `RateLimiter.layerStoreMemory` of @effect/experimental, which never forgets a key, so a process that sees many
 * client addresses would grow without bound. Here:
 *
 * - an expired counter (fixed window over, token bucket full again) is the same as no counter, so it is dropped: on
 *   access, by a full sweep at most every `sweepInterval` (triggered by requests), and by the layer's background sweep;
 * - at most `maxEntries` counters exist: a new key past the cap first sweeps (if the last sweep is a second old),
 *   then evicts the least recently used counters. An evicted live counter restarts at zero; the cap is far above
 *   what the limits need, so only a flood of distinct addresses reaches it, and memory stays bounded even then.
 *
 * The map keeps keys in order of last use (a touched key is moved to the end), so eviction takes from the front.
 */
export const makeMemoryRateLimitStore = (options: MemoryRateLimitStoreOptions = {}) =>
  Effect.sync((): MemoryRateLimitStore => {
    const maxEntries = Math.max(1, options.maxEntries ?? MEMORY_RATE_LIMIT_MAX_ENTRIES)
    const sweepMillis = Duration.toMillis(options.sweepInterval ?? MEMORY_RATE_LIMIT_SWEEP_INTERVAL)
    const entries = new Map<string, Entry>()
    let lastSweep = Number.NEGATIVE_INFINITY

    const sweepAt = (now: number) => {
      lastSweep = now
      let dropped = 0
      for (const [key, entry] of entries) {
        if (expiresAt(entry) <= now) {
          entries.delete(key)
          dropped++
        }
      }
      return dropped
    }

    /** The live entry of `key` (moved to the most recently used end), or none. */
    const take = (key: string, now: number): Entry | undefined => {
      if (now - lastSweep >= sweepMillis) sweepAt(now)
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(key)
      if (expiresAt(entry) <= now) return undefined
      entries.set(key, entry)
      return entry
    }

    /** Makes room for one more key: expired ones first, then the least recently used. */
    const admit = (key: string, entry: Entry, now: number) => {
      if (entries.size >= maxEntries && now - lastSweep >= 1000) sweepAt(now)
      for (const oldest of entries.keys()) {
        if (entries.size < maxEntries) break
        entries.delete(oldest)
      }
      entries.set(key, entry)
    }

    const store = RateLimiter.RateLimiterStore.of({
      fixedWindow: (options) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const refillRateMillis = Duration.toMillis(options.refillRate)
            const now = clock.unsafeCurrentTimeMillis()
            const found = take(options.key, now)
            let counter: FixedCounter
            if (found?.kind === "fixed") {
              counter = found.counter
            } else {
              counter = { count: 0, expiresAt: now }
              admit(options.key, { kind: "fixed", counter }, now)
            }
            if (options.limit !== undefined && counter.count + options.tokens > options.limit) {
              return [counter.count + options.tokens, counter.expiresAt - now] as const
            }
            counter.count += options.tokens
            counter.expiresAt += refillRateMillis * options.tokens
            return [counter.count, counter.expiresAt - now] as const
          })
        ),
      tokenBucket: (options) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const refillRateMillis = Duration.toMillis(options.refillRate)
            const now = clock.unsafeCurrentTimeMillis()
            const found = take(options.key, now)
            let bucket: Bucket
            if (found?.kind === "bucket") {
              bucket = found.bucket
              const tokensToAdd = Math.floor((now - bucket.lastRefill) / refillRateMillis)
              if (tokensToAdd > 0) {
                bucket.tokens = Math.min(options.limit, bucket.tokens + tokensToAdd)
                bucket.lastRefill += tokensToAdd * refillRateMillis
              }
            } else {
              bucket = { tokens: options.limit, lastRefill: now, fullAt: now }
              admit(options.key, { kind: "bucket", bucket }, now)
            }
            const newTokenCount = bucket.tokens - options.tokens
            if (options.allowOverflow || newTokenCount >= 0) bucket.tokens = newTokenCount
            bucket.fullAt = bucket.lastRefill + Math.max(0, options.limit - bucket.tokens) * refillRateMillis
            return newTokenCount
          })
        )
    })

    return {
      store,
      size: Effect.sync(() => entries.size),
      sweep: Effect.clockWith((clock) => Effect.sync(() => sweepAt(clock.unsafeCurrentTimeMillis())))
    }
  })

/** Sweeps `memory` every `interval`, for as long as the fiber runs. */
export const sweepPeriodically = (
  memory: MemoryRateLimitStore,
  interval: Duration.DurationInput = MEMORY_RATE_LIMIT_SWEEP_INTERVAL
) => memory.sweep.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.asVoid)

/**
 * The bounded memory store as a layer, with a background sweep every `sweepInterval` while the layer lives, so that
 * an idle process also gives the memory of a past flood back.
 */
export const layerMemoryRateLimitStore = (options: MemoryRateLimitStoreOptions = {}) =>
  Layer.scoped(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore(options)
      yield* Effect.forkScoped(sweepPeriodically(memory, options.sweepInterval))
      return memory.store
    })
  )
