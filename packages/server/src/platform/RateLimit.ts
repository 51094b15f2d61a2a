import { RateLimiter } from "@effect/experimental"
import * as RedisRateLimiter from "@effect/experimental/RateLimiter/Redis"
import type { HttpApiMiddleware } from "@effect/platform"
import { RateLimited, type RateLimitPolicy } from "@timebank/domain"
import { Clock, type Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import type { RedisOptions } from "ioredis"
import { AppConfig } from "./AppConfig.js"
import { clientIp } from "./ClientIp.js"
import { layerMemoryRateLimitStore } from "./MemoryRateLimitStore.js"
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

/**
 * The one rate limiter of the process: counters in Redis when `REDIS_URL` is set (shared by every process), in
 * memory otherwise (a bounded store that forgets expired windows: {@link layerMemoryRateLimitStore}). The Redis
 * connection is opened on first use and gives up quickly, so a Redis outage costs a request at most
 * {@link RATE_LIMIT_STORE_TIMEOUT}.
 */
export const RateLimiterLive = RateLimiter.layer.pipe(
  Layer.provide(Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => layerMemoryRateLimitStore(),
      onSome: (url) =>
        RedisRateLimiter.layerStore({
          ...redisOptionsFromUrl(Redacted.value(url)),
          prefix: `${config.redisKeyPrefix}ratelimit:`,
          lazyConnect: true,
          maxRetriesPerRequest: 1,
          commandTimeout: Duration.toMillis(RATE_LIMIT_STORE_TIMEOUT)
        })
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
        yield* Effect.logWarning("rate limit store unavailable; request let through", error).pipe(
          Effect.annotateLogs({ rate_limit: tag.key })
        )
      })
    })
  )
