import { Effect, Option, Redacted, Runtime } from "effect"
import { Redis as IORedis } from "ioredis"
import { AppConfig } from "./AppConfig.js"

/** How long the start waits for the first connection; past it (or on a refusal) the process starts without Redis. */
const FIRST_CONNECT_WAIT = "2 seconds"

/**
 * The shared Redis connection when `REDIS_URL` is set; `None` means the process keeps such state in memory
 * (rate limits, nonces, dedupe windows), which is right for one process and the embedded default.
 *
 * While Redis is unreachable every command fails at once (no offline queue), so the users' fallbacks (the login
 * throttle and nonce claims to PostgreSQL or memory, the buses' best-effort publish) cost a request nothing, where a
 * queued command would hold it for the fallback's whole timeout. ioredis keeps reconnecting in the background
 * (50 ms more per attempt, at most 2 s apart), so Redis is used again within about 2 s of its return. The outage
 * and the return are logged once each.
 */
export class Redis extends Effect.Service<Redis>()("Redis", {
  scoped: Effect.gen(function*() {
    const { redisUrl } = yield* AppConfig
    if (Option.isNone(redisUrl)) return { client: Option.none<IORedis>() }
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const client = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new IORedis(Redacted.value(redisUrl.value), {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 2
        })
      ),
      // With Redis unreachable `quit` rejects (its command cannot be sent): drop the socket instead. A rejection
      // must not escape as a defect when the process or a test closes its scope.
      (c) => Effect.tryPromise(() => c.quit()).pipe(Effect.catchAll(() => Effect.sync(() => c.disconnect())))
    )
    let down = false
    client.on("error", (error: Error) => {
      if (down) return
      down = true
      runFork(Effect.logWarning("Redis unreachable; its users fall back until it returns", error.message))
    })
    client.on("ready", () => {
      if (!down) return
      down = false
      runFork(Effect.logInfo("Redis reachable again"))
    })
    yield* Effect.tryPromise(() => client.connect()).pipe(Effect.timeout(FIRST_CONNECT_WAIT), Effect.ignore)
    return { client: Option.some(client) }
  })
}) {}
