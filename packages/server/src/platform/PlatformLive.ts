import { Effect, Layer, Logger } from "effect"
import { AppConfig } from "./AppConfig.js"
import { ClusterLive } from "./Cluster.js"
import { DatabaseLive } from "./Database.js"
import { Outbox } from "./Outbox.js"
import { RateLimiterLive } from "./RateLimit.js"
import { Redis } from "./Redis.js"
import { ObservabilityLive } from "./Telemetry.js"
import { TenantSql } from "./TenantSql.js"

const LogLevelLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => Logger.minimumLogLevel(config.logLevel)))

/** Configuration, the migrated database, Redis: enough for operator commands, which must not join the cluster. */
export const CorePlatformLive = Layer.mergeAll(TenantSql.Default, Outbox.Default, Redis.Default, RateLimiterLive).pipe(
  Layer.provideMerge(DatabaseLive),
  // Before the database, so that its start-up logs obey LOG_LEVEL too.
  Layer.provideMerge(LogLevelLive),
  Layer.provideMerge(AppConfig.Default)
)

/** Shared infrastructure of a serving process: the core platform plus a cluster runner. */
export const PlatformLive = ClusterLive.pipe(Layer.provideMerge(CorePlatformLive), Layer.provide(ObservabilityLive))
