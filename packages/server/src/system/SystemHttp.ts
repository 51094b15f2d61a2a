import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Api, NotReady } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Redis } from "../platform/Redis.js"

type Check = "ok" | "failing" | "not_configured"

const probe = (effect: Effect.Effect<unknown, unknown>): Effect.Effect<Check> =>
  effect.pipe(Effect.timeout("2 seconds"), Effect.as("ok" as const), Effect.orElseSucceed(() => "failing" as const))

export const SystemHttpLive = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const redis = yield* Redis

    const ready = Effect.gen(function*() {
      const [database, cache] = yield* Effect.all([
        probe(sql`SELECT 1`),
        Option.match(redis.client, {
          onNone: () => Effect.succeed("not_configured" as const),
          onSome: (client) => probe(Effect.tryPromise(() => client.ping()))
        })
      ], { concurrency: "unbounded" })
      if (database === "failing" || cache === "failing") {
        return yield* new NotReady({ message: `Not ready: database ${database}, redis ${cache}` })
      }
      return { status: "ok" as const, checks: { database, redis: cache } }
    })

    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => ready)
  }))
