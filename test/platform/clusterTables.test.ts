import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { createClusterTables, FAILOVER_TIMINGS } from "@timebank/server"
import { Effect, Layer } from "effect"
import { freshDatabase, pgClientLayer } from "../fixtures/TestDatabase.js"

/** Processes starting at once: each has its own pool, as separate runners do. */
const STARTERS = 6

describe("the cluster's tables", () => {
  it.scopedLive(
    "made by several processes at once on a fresh database: all succeed, one set of tables",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const pools = yield* Effect.all(Array.from({ length: STARTERS }, () => Layer.build(pgClientLayer(db.url))))
        const outcomes = yield* Effect.all(
          pools.map((pool) => Effect.exit(Effect.provide(createClusterTables(FAILOVER_TIMINGS), pool))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(outcomes.map((exit) => exit._tag), Array(STARTERS).fill("Success"))
        const sql = yield* Effect.provide(SqlClient.SqlClient, pools[0]!)
        const tables = yield* sql<{ name: string }>`
        SELECT table_name AS name FROM information_schema.tables WHERE table_name LIKE 'cluster\\_%' ORDER BY 1`
        assert.includeMembers(tables.map((t) => t.name), ["cluster_messages", "cluster_replies", "cluster_runners"])
      }),
    { timeout: 60_000 }
  )
})
