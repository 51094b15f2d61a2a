import { RateLimited } from "@timebank/domain"
import { Duration, Effect, Option } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { Redis } from "../platform/Redis.js"
import { setRetryAfter } from "../platform/ResponseHeaders.js"

/** Decisions D4: 10 failures for one e-mail or one IP within 5 minutes lock until 5 minutes after the last one. */
export const MAX_FAILURES = 10
export const FAILURE_WINDOW = Duration.minutes(5)

interface FailureStore {
  /** Failures so far and milliseconds until they are forgotten. */
  readonly read: (key: string) => Effect.Effect<{ readonly count: number; readonly ttlMillis: number }>
  /** Counts one more failure; the window restarts at every failure. */
  readonly add: (key: string) => Effect.Effect<void>
  readonly clear: (key: string) => Effect.Effect<void>
}

const windowMillis = Duration.toMillis(FAILURE_WINDOW)

const memoryStore = (): FailureStore => {
  const entries = new Map<string, { count: number; until: number }>()
  const live = (key: string) => {
    const entry = entries.get(key)
    if (entry && entry.until <= Date.now()) entries.delete(key)
    return entries.get(key)
  }
  return {
    read: (key) =>
      Effect.sync(() => {
        const entry = live(key)
        return entry ? { count: entry.count, ttlMillis: entry.until - Date.now() } : { count: 0, ttlMillis: 0 }
      }),
    add: (key) =>
      Effect.sync(() => {
        entries.set(key, { count: (live(key)?.count ?? 0) + 1, until: Date.now() + windowMillis })
      }),
    clear: (key) => Effect.sync(() => void entries.delete(key))
  }
}

/**
 * Like the route rate limits, the throttle fails open: while Redis does not answer, logins are not throttled
 * (logged), rather than every login failing with a 500.
 */
const failOpen = <A>(what: string, fallback: A) => <E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.timeout("2 seconds"),
    Effect.catchAll((error) =>
      Effect.as(Effect.logWarning(`login throttle store unavailable (${what})`, error), fallback)
    )
  )

const redisStore = (client: import("ioredis").Redis): FailureStore => ({
  read: (key) =>
    Effect.tryPromise(() => client.multi().get(key).pttl(key).exec()).pipe(
      Effect.map((results) => {
        const count = Number(results?.[0]?.[1] ?? 0)
        const ttl = Number(results?.[1]?.[1] ?? 0)
        return { count, ttlMillis: ttl > 0 ? ttl : 0 }
      }),
      failOpen("read", { count: 0, ttlMillis: 0 })
    ),
  add: (key) =>
    Effect.tryPromise(() => client.multi().incr(key).pexpire(key, windowMillis).exec()).pipe(
      Effect.asVoid,
      failOpen<void>("add", undefined)
    ),
  clear: (key) => Effect.tryPromise(() => client.del(key)).pipe(Effect.asVoid, failOpen<void>("clear", undefined))
})

/**
 * The stored brute-force limiter of login (spec "Authentication" §5). Kept in Redis when configured, so that every
 * process sees the same counts; in memory otherwise.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("LoginThrottle", {
  effect: Effect.gen(function*() {
    const redis = yield* Redis
    const { redisKeyPrefix } = yield* AppConfig
    const store = Option.match(redis.client, { onNone: memoryStore, onSome: redisStore })
    const keys = (email: string, ip: string) => [
      `${redisKeyPrefix}login-fail:email:${email.toLowerCase()}`,
      `${redisKeyPrefix}login-fail:ip:${ip}`
    ]

    return {
      /** Fails with 429 while the e-mail or the IP is locked. */
      check: (email: string, ip: string) =>
        Effect.forEach(keys(email, ip), store.read).pipe(
          Effect.flatMap((states) => {
            const locked = states.filter((s) => s.count >= MAX_FAILURES)
            if (locked.length === 0) return Effect.void
            const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(...locked.map((s) => s.ttlMillis)) / 1000))
            return Effect.zipRight(
              setRetryAfter(retryAfterSeconds),
              Effect.fail(new RateLimited({ message: `Too many failed logins; try again in ${retryAfterSeconds} s` }))
            )
          })
        ),
      recordFailure: (email: string, ip: string) => Effect.forEach(keys(email, ip), store.add, { discard: true }),
      /** A successful login forgets that e-mail's failures (not the IP's). */
      clear: (email: string) => store.clear(keys(email, "")[0]!)
    } as const
  })
}) {}
