import { Effect, Layer, Logger } from "effect"
import { AppConfig } from "./AppConfig.js"
import { ClusterLive } from "./Cluster.js"
import { DatabaseLive } from "./Database.js"
import { Outbox } from "./Outbox.js"
import { Redis } from "./Redis.js"
import { TenantSql } from "./TenantSql.js"

const LogLevelLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => Logger.minimumLogLevel(config.logLevel)))

/** Shared infrastructure of every process: configuration, the migrated database, cluster sharding, Redis. */
export const PlatformLive = Layer.mergeAll(TenantSql.Default, Outbox.Default, Redis.Default).pipe(
  Layer.provideMerge(ClusterLive),
  Layer.provideMerge(LogLevelLive),
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.Default)
)
