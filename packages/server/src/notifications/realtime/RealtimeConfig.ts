import { Config, Duration, Effect, Option } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"

/** Which bus carries realtime batches between runners (`REALTIME_BUS`, decisions D12). */
export type RealtimeTransport = "redis" | "postgres"

/**
 * Realtime settings. `REALTIME_BUS=auto` (default) picks Redis pub/sub when `REDIS_URL` is set and PostgreSQL
 * LISTEN/NOTIFY otherwise; `redis` or `postgres` force one (forcing `redis` without `REDIS_URL` is a start-up error).
 */
export class RealtimeConfig extends Effect.Service<RealtimeConfig>()("RealtimeConfig", {
  effect: Effect.gen(function*() {
    const app = yield* AppConfig
    const bus = yield* Config.literal("auto", "redis", "postgres")("REALTIME_BUS").pipe(
      Config.withDefault("auto" as const)
    )
    if (bus === "redis" && Option.isNone(app.redisUrl)) {
      return yield* Effect.dieMessage("REALTIME_BUS=redis needs REDIS_URL")
    }
    const transport: RealtimeTransport = bus === "auto" ? (Option.isSome(app.redisUrl) ? "redis" : "postgres") : bus
    return {
      transport,
      /** Redis pub/sub channels ignore the db index: the prefix keeps deployments sharing a server apart. */
      redisChannel: `${app.redisKeyPrefix}realtime`,
      postgresChannel: "timebank_realtime",
      heartbeat: yield* Config.duration("REALTIME_HEARTBEAT").pipe(Config.withDefault(Duration.seconds(25))),
      maxSocketsPerUser: yield* Config.integer("REALTIME_MAX_SOCKETS_PER_USER").pipe(
        Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }),
        Config.withDefault(5)
      ),
      maxSockets: yield* Config.integer("REALTIME_MAX_SOCKETS").pipe(
        Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }),
        Config.withDefault(10_000)
      )
    } as const
  })
}) {}
