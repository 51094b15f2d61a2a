import { RateLimiter } from "@effect/experimental"
import { assert, describe, it } from "@effect/vitest"
import { makeMemoryRateLimitStore, type MemoryRateLimitStore, sweepPeriodically } from "@timebank/server"
import { Duration, Effect, Either, Fiber, TestClock } from "effect"

const WINDOW = Duration.minutes(1)
const LIMIT = 30

/** A limiter over `memory`, counting like the HTTP rate limits (fixed window, refuse past the limit). */
const limiterOf = (memory: MemoryRateLimitStore) =>
  RateLimiter.make.pipe(Effect.provideService(RateLimiter.RateLimiterStore, memory.store))

const consume = (limiter: RateLimiter.RateLimiter, ip: string) =>
  limiter.consume({ key: `LoginRateLimit:${ip}`, limit: LIMIT, window: WINDOW, algorithm: "fixed-window" }).pipe(
    Effect.either
  )

/** The n-th of many distinct IPv4 addresses. */
const ipOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`

const isExceeded = (outcome: Either.Either<unknown, RateLimiter.RateLimiterError>) =>
  Either.isLeft(outcome) && outcome.left.reason === "Exceeded"

describe("MemoryRateLimitStore", () => {
  it.effect("100,000 distinct IPs in one window: the store never holds more than its cap", () =>
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore({ maxEntries: 10_000 })
      const limiter = yield* limiterOf(memory)
      let largest = 0
      for (let n = 0; n < 100_000; n++) {
        const outcome = yield* consume(limiter, ipOf(n))
        assert.isTrue(Either.isRight(outcome))
        if (n % 1000 === 999) largest = Math.max(largest, yield* memory.size)
      }
      assert.strictEqual(largest, 10_000)
      assert.strictEqual(yield* memory.size, 10_000)
    }))

  it.effect("expired windows are gone once the window has passed: swept on the next access", () =>
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore()
      const limiter = yield* limiterOf(memory)
      for (let n = 0; n < 100_000; n++) yield* consume(limiter, ipOf(n))
      assert.strictEqual(yield* memory.size, 100_000)
      // Each counter lives window ÷ limit (2 s) per request counted: still alive a second later.
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* memory.sweep, 0)
      yield* TestClock.adjust("2 seconds")
      yield* consume(limiter, "192.0.2.1")
      assert.strictEqual(yield* memory.size, 1, "only the new caller's window is left")
    }))

  it.effect("the background sweep drops expired windows without any request", () =>
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore({ sweepInterval: "10 seconds" })
      const limiter = yield* limiterOf(memory)
      const sweeper = yield* Effect.fork(sweepPeriodically(memory, "10 seconds"))
      // A burst from one address locks it for the whole window; single requests from others end after 2 s.
      for (let i = 0; i < LIMIT; i++) yield* consume(limiter, "198.51.100.7")
      for (let n = 0; n < 5_000; n++) yield* consume(limiter, ipOf(n))
      assert.strictEqual(yield* memory.size, 5_001)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* memory.size, 1, "the burst's window is still running")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* memory.size, 0)
      yield* Fiber.interrupt(sweeper)
    }))

  it.effect("limits still work: the 31st request in a window is refused, and allowed again after it", () =>
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore({ maxEntries: 1_000 })
      const limiter = yield* limiterOf(memory)
      const ip = "203.0.113.9"
      for (let i = 0; i < LIMIT; i++) {
        const outcome = yield* consume(limiter, ip)
        assert.isTrue(Either.isRight(outcome), `request ${i + 1}`)
        if (Either.isRight(outcome)) assert.strictEqual(outcome.right.remaining, LIMIT - i - 1)
      }
      // Other addresses come and go (more than the cap): the busy caller is recently used and keeps its count.
      for (let n = 0; n < 5_000; n++) {
        yield* consume(limiter, ipOf(n))
        if (n % 500 === 0) assert.isTrue(isExceeded(yield* consume(limiter, ip)), `refused while ${n} others came`)
      }
      assert.isAtMost(yield* memory.size, 1_000)
      const refused = yield* consume(limiter, ip)
      assert.isTrue(isExceeded(refused))
      if (Either.isLeft(refused) && refused.left.reason === "Exceeded") {
        assert.isAbove(Duration.toMillis(refused.left.retryAfter), 0)
        assert.isAtMost(Duration.toMillis(refused.left.retryAfter), Duration.toMillis(WINDOW))
      }
      // Refusals do not extend the lock: a minute after the burst the address may ask again.
      yield* TestClock.adjust(WINDOW)
      assert.isTrue(Either.isRight(yield* consume(limiter, ip)))
    }))

  it.effect("token buckets: counted like the library's memory store, dropped once full again", () =>
    Effect.gen(function*() {
      const memory = yield* makeMemoryRateLimitStore()
      const limiter = yield* limiterOf(memory)
      const take = () =>
        limiter.consume({ key: "bucket", limit: 3, window: "3 seconds", algorithm: "token-bucket" }).pipe(
          Effect.either
        )
      for (let i = 0; i < 3; i++) assert.isTrue(Either.isRight(yield* take()))
      assert.isTrue(isExceeded(yield* take()))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Either.isRight(yield* take()), "one token back after a second")
      assert.isTrue(isExceeded(yield* take()))
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* memory.sweep, 1, "a full bucket is the same as none")
      for (let i = 0; i < 3; i++) assert.isTrue(Either.isRight(yield* take()))
      assert.isTrue(isExceeded(yield* take()))
    }))
})
