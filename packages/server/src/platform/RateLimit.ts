import { RateLimiter } from "@effect/experimental"
import * as RedisRateLimiter from "@effect/experimental/RateLimiter/Redis"
import type { HttpApiMiddleware } from "@effect/platform"
import { RateLimited, type RateLimitPolicy } from "@timebank/domain"
import { Clock, type Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import type { RedisOptions } from "ioredis"
import { AppConfig } from "./AppConfig.js"
import { clientIp } from "./ClientIp.js"
import { layerMemoryRateLimitStore } from "./MemoryRateLimitStore.js"
import { Redis } from "./Redis.js"
import { setResponseHeaders, setRetryAfter } from "./ResponseHeaders.js"

/** A store that does not answer within this time is treated as down: the request goes through. */
export const RATE_LIMIT_STORE_TIMEOUT = Duration.seconds(1)

/** Connection options of a `redis://` or `rediss://` URL (the Redis rate-limit store takes options, not a URL). */
export const redisOptionsFromUrl = (url: string): RedisOptions => {
  const parsed = new URL(url)
  const db = parsed.pathname.replace(/^\//, "")
  return {
    host: parsed.hostname,
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    ...(parsed.username === "" ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === "" ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(db === "" ? {} : { db: Number(db) }),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {})
  }
}

/** The store's failure while Redis is known to be down: the outage is logged once, by the shared connection. */
const REDIS_DOWN = "Redis is unreachable (the shared connection is not ready)"

/**
 * The Redis store, asked only while the process's shared Redis connection is ready: while it sees Redis down, the
 * store fails at once (the limit falls open) instead of queueing a command for {@link RATE_LIMIT_STORE_TIMEOUT}.
 * The store keeps its own client (the library opens it), so a brief reconnection of that client still waits.
 */
const layerRedisStore = (url: string, keyPrefix: string) =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      const store = yield* RateLimiter.RateLimiterStore
      const { client } = yield* Redis
      const unavailable = Effect.fail(new RateLimiter.RateLimitStoreError({ message: REDIS_DOWN }))
      const isDown = () => Option.isSome(client) && client.value.status !== "ready"
      return RateLimiter.RateLimiterStore.of({
        fixedWindow: (options) => isDown() ? unavailable : store.fixedWindow(options),
        tokenBucket: (options) => isDown() ? unavailable : store.tokenBucket(options)
      })
    })
  ).pipe(
    Layer.provide(RedisRateLimiter.layerStore({
      ...redisOptionsFromUrl(url),
      prefix: `${keyPrefix}ratelimit:`,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      commandTimeout: Duration.toMillis(RATE_LIMIT_STORE_TIMEOUT)
    })),
    Layer.provide(Redis.Default)
  )

/**
 * The one rate limiter of the process: counters in Redis when `REDIS_URL` is set (shared by every process), in
 * memory otherwise (a bounded store that forgets expired windows: {@link layerMemoryRateLimitStore}). While Redis
 * is down the limits fall open at once ({@link layerRedisStore}); a store that does not answer costs a request at
 * most {@link RATE_LIMIT_STORE_TIMEOUT}.
 */
export const RateLimiterLive = RateLimiter.layer.pipe(
  Layer.provide(Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => layerMemoryRateLimitStore(),
      onSome: (url) => layerRedisStore(Redacted.value(url), config.redisKeyPrefix)
    }))))
)

/** `X-RateLimit-*` of decisions D10; the reset is a unix time in seconds. */
export const rateLimitHeaders = (limit: number, remaining: number, resetAtMillis: number) => ({
  "x-ratelimit-limit": String(limit),
  "x-ratelimit-remaining": String(Math.max(0, remaining)),
  "x-ratelimit-reset": String(Math.ceil(resetAtMillis / 1000))
})

/** Whole seconds until the caller may try again, at least 1. */
export const retryAfterSeconds = (retryAfter: Duration.Duration) =>
  Math.max(1, Math.ceil(Duration.toMillis(retryAfter) / 1000))

/**
 * The middleware of a rate-limit tag declared in the contract (`RateLimit` in the domain): counts the request
 * against `<tag name>:<client IP>`, puts `X-RateLimit-*` on the response (success or error), and past the limit
 * fails with 429 `RATE_LIMITED` and `Retry-After`. When the store fails, the request goes through (fail open) and
 * the failure is logged: an outage of Redis must not take the API down with it.
 */
export const rateLimitLayer = <I>(
  tag: Context.Tag<I, HttpApiMiddleware.HttpApiMiddleware<void, RateLimited>> & { readonly policy: RateLimitPolicy }
) =>
  Layer.effect(
    tag,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.RateLimiter
      const { trustProxy } = yield* AppConfig
      const { limit, window } = tag.policy
      return Effect.gen(function*() {
        const key = `${tag.key}:${yield* clientIp(trustProxy)}`
        const outcome = yield* limiter.consume({ key, limit, window, algorithm: "fixed-window", onExceeded: "fail" })
          .pipe(Effect.timeout(RATE_LIMIT_STORE_TIMEOUT), Effect.either)
        const now = yield* Clock.currentTimeMillis
        if (outcome._tag === "Right") {
          const { remaining, resetAfter } = outcome.right
          return yield* setResponseHeaders(rateLimitHeaders(limit, remaining, now + Duration.toMillis(resetAfter)))
        }
        const error = outcome.left
        if (error._tag === "RateLimiterError" && error.reason === "Exceeded") {
          const seconds = retryAfterSeconds(error.retryAfter)
          yield* setResponseHeaders(rateLimitHeaders(limit, 0, now + seconds * 1000))
          yield* setRetryAfter(seconds)
          return yield* new RateLimited({ message: `Too many requests; try again in ${seconds} s` })
        }
        if (error.message === REDIS_DOWN) return
        yield* Effect.logWarning("rate limit store unavailable; request let through", error).pipe(
          Effect.annotateLogs({ rate_limit: tag.key })
        )
      })
    })
  )
