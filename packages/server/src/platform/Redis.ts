import { Effect, Option, Redacted } from "effect"
import { Redis as IORedis } from "ioredis"
import { AppConfig } from "./AppConfig.js"

/**
 * The shared Redis connection when `REDIS_URL` is set; `None` means the process keeps such state in memory
 * (rate limits, nonces, dedupe windows), which is right for one process and the embedded default.
 */
export class Redis extends Effect.Service<Redis>()("Redis", {
  scoped: Effect.gen(function*() {
    const { redisUrl } = yield* AppConfig
    if (Option.isNone(redisUrl)) return { client: Option.none<IORedis>() }
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => new IORedis(Redacted.value(redisUrl.value), { lazyConnect: true, maxRetriesPerRequest: 2 })),
      // With Redis unreachable `quit` rejects (its command cannot be sent): drop the socket instead. A rejection
      // must not escape as a defect when the process or a test closes its scope.
      (c) => Effect.tryPromise(() => c.quit()).pipe(Effect.catchAll(() => Effect.sync(() => c.disconnect())))
    )
    return { client: Option.some(client) }
  })
}) {}
