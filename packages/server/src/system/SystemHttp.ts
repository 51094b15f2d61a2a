import { ShardingConfig } from "@effect/cluster"
import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Api, NotReady } from "@timebank/domain"
import { Effect, Option } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { Redis } from "../platform/Redis.js"

type Check = "ok" | "failing" | "not_configured"

const probe = (effect: Effect.Effect<boolean, unknown>): Effect.Effect<Check> =>
  effect.pipe(
    Effect.timeout("2 seconds"),
    Effect.map((ok) => (ok ? "ok" as const : "failing" as const)),
    Effect.orElseSucceed(() => "failing" as const)
  )

/**
 * The address this process's runner registers under in `cluster_runners` (`host:port`): RUNNER_HOST/RUNNER_PORT in
 * socket mode; in single mode whatever the library's own configuration reads (it takes HOST and PORT from the
 * environment, else `localhost:34431`), so the same source is read here.
 */
const runnerAddressOf = (config: AppConfig) =>
  config.clusterMode === "socket"
    ? Effect.succeed(`${config.runnerHost}:${config.runnerPort}`)
    : Effect.map(
      Effect.orDie(ShardingConfig.configFromEnv),
      (sharding) => Option.match(sharding.runnerAddress, { onNone: () => "", onSome: (a) => `${a.host}:${a.port}` })
    )

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const redis = yield* Redis
    const runnerAddress = yield* runnerAddressOf(yield* AppConfig)

    const runnerHealthy = sql<{ healthy: boolean }>`
      SELECT healthy FROM cluster_runners WHERE address = ${runnerAddress}`.pipe(
      Effect.map((rows) => rows[0]?.healthy === true)
    )

    const ready = Effect.gen(function*() {
      const checks = yield* Effect.all({
        database: probe(Effect.as(sql`SELECT 1`, true)),
        redis: Option.match(redis.client, {
          onNone: () => Effect.succeed("not_configured" as const),
          onSome: (client) => probe(Effect.as(Effect.tryPromise(() => client.ping()), true))
        }),
        runner: probe(runnerHealthy)
      }, { concurrency: "unbounded" })
      const failing = Object.entries(checks).filter(([, status]) => status === "failing").map(([name]) => name)
      if (failing.length > 0) {
        const states = Object.entries(checks).map(([name, status]) => `${name} ${status}`).join(", ")
        return yield* new NotReady({ message: `Not ready: ${states}`, field: failing[0] })
      }
      return { status: "ok" as const, checks }
    })

    const alive = Effect.succeed({ status: "ok" as const })

    return handlers
      .handle("health", () => alive)
      .handle("live", () => alive)
      .handle("ready", () => ready)
  }))
