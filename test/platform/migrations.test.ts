import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { migrations } from "@timebank/migrations"
import { runMigrations } from "@timebank/server"
import { Effect } from "effect"
import { freshDatabase, pgClientLayer } from "../fixtures/TestDatabase.js"

describe("migrations", () => {
  it.live(
    "two processes migrating one database at once: one applies everything, the other nothing, no error",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        // Separate pools stand for separate processes starting together.
        const [a, b] = yield* Effect.all([
          runMigrations.pipe(Effect.provide(pgClientLayer(db.url))),
          runMigrations.pipe(Effect.provide(pgClientLayer(db.url)))
        ], { concurrency: 2 })
        const total = Object.keys(migrations).length
        assert.deepStrictEqual([a.length, b.length].sort(), [0, total])

        const check = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const applied = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
          const platform = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tenants WHERE slug = 'platform'`
          return { applied: applied[0]!.n, platform: platform[0]!.n }
        })
        assert.deepStrictEqual(yield* check.pipe(Effect.provide(pgClientLayer(db.url))), {
          applied: total,
          platform: 1
        })

        const again = yield* runMigrations.pipe(Effect.provide(pgClientLayer(db.url)))
        assert.strictEqual(again.length, 0)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
