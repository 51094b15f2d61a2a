import { RunnerAddress, ShardingConfig, SingleRunner, SqlMessageStorage, SqlRunnerStorage } from "@effect/cluster"
import { NodeClusterSocket } from "@effect/platform-node"
import { Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "./AppConfig.js"
import { withMigrationLock } from "./Database.js"

/**
 * How fast the runners of a socket-mode deployment notice that one of them is gone, and so how long the entities
 * and singletons of a killed runner are unserved (the library's defaults: a 35 s lock expiry, so about 40 s).
 *
 * - A runner's row in `cluster_runners` is heartbeated every `shardLockRefreshInterval` (the library uses at most a
 *   third of the expiry); the others drop a runner whose heartbeat is older than `shardLockExpiration` and move its
 *   shards within `refreshAssignmentsInterval`. 6 s is three missed heartbeats: a runner stalled for 4 s (a GC pause,
 *   a starved CPU) is not taken for dead, and a killed one is gone 6–7 s later.
 * - Shards are held by PostgreSQL advisory locks on a connection of their runner, released by PostgreSQL the
 *   moment that process dies; a runner declared dead wrongly keeps its locks, so nothing runs twice, it only waits.
 * - The runner-health singleton pings every other runner every `runnerHealthCheckInterval`; a refused ping (5 tries
 *   500 ms apart) marks it unhealthy, which moves its shards in about 3 s when the checker is the survivor.
 */
export const FAILOVER_TIMINGS = {
  shardLockRefreshInterval: Duration.seconds(2),
  shardLockExpiration: Duration.seconds(6),
  refreshAssignmentsInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(2)
} as const

/**
 * The cluster's own tables, created (when missing) under our migration lock. The library creates them when its
 * storage layers are built, with statements that fail when two processes run them at once on a fresh database (two
 * runners started together: one exited); built here first, one process at a time, they exist before any runner's
 * storage looks. The storages built here are released at once.
 */
export const createClusterTables = (shardingConfig: Partial<ShardingConfig.ShardingConfig["Type"]>) =>
  withMigrationLock(Effect.scoped(Layer.build(
    Layer.mergeAll(SqlMessageStorage.layer, SqlRunnerStorage.layer).pipe(
      Layer.provide(ShardingConfig.layer(shardingConfig))
    )
  )))

/**
 * @effect/cluster sharding with message and runner storage in PostgreSQL.
 *
 * - `CLUSTER_MODE=single` (default): one runner inside this process.
 * - `CLUSTER_MODE=socket`: this process is one of several runners on one PostgreSQL, reachable by the others at
 *   `RUNNER_HOST:RUNNER_PORT`; entities are spread over all runners and any process can message any entity.
 */
export const ClusterLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  // Persisted messages, singletons and cron are polled; one second keeps background work responsive. The lock
  // timings also bound how long a lone runner waits to take its shards back after PostgreSQL was unreachable.
  const shardingConfig = { entityMessagePollInterval: "1 second", ...FAILOVER_TIMINGS } as const
  const runner = config.clusterMode === "single"
    ? SingleRunner.layer({ shardingConfig })
    : NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...shardingConfig,
        runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, config.runnerPort))
      }
    })
  return runner.pipe(Layer.provide(Layer.effectDiscard(createClusterTables(shardingConfig))))
}))
