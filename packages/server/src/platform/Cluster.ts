import { RunnerAddress, SingleRunner } from "@effect/cluster"
import { NodeClusterSocket } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "./AppConfig.js"

/**
 * @effect/cluster sharding with message and runner storage in PostgreSQL.
 *
 * - `CLUSTER_MODE=single` (default): one runner inside this process.
 * - `CLUSTER_MODE=socket`: this process is one of several runners on one PostgreSQL, reachable by the others at
 *   `RUNNER_HOST:RUNNER_PORT`; entities are spread over all runners and any process can message any entity.
 */
export const ClusterLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  // Persisted messages, singletons and cron are polled; one second keeps background work responsive.
  const shardingConfig = { entityMessagePollInterval: "1 second" } as const
  return config.clusterMode === "single"
    ? SingleRunner.layer({ shardingConfig })
    : NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...shardingConfig,
        runnerAddress: Option.some(RunnerAddress.make(config.runnerHost, config.runnerPort))
      }
    })
}))
