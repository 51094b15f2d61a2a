import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ClusterFeaturesLive } from "@timebank/server"
import { Effect, Layer } from "effect"
import { expectStatus } from "../fixtures/client.js"
import { actor, community } from "../fixtures/community.js"
import { type Server, TestServerOn } from "../fixtures/servers.js"
import { apiClient } from "../fixtures/TestApp.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"
import { setSlowFor, TEST_SLOW, TestJobsLive } from "./testJobs.js"

describe("background jobs on two runners", () => {
  it.live(
    "concurrent runs by hand on two servers make one run: both answer it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const db = yield* freshDatabase
        // Both processes register the test jobs, as every process registers every feature's.
        const server = () => Layer.build(TestServerOn(db.url, {}, Layer.merge(ClusterFeaturesLive, TestJobsLive)))
        const a = yield* server()
        const b = yield* server()
        const onA = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, a)
        const onB = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, b)

        const c = yield* onA(community({ signIn: "token" }))
        const adminOnB = yield* onB(Effect.flatMap(actor(c.admin, "token"), (admin) => apiClient(admin.headers)))
        yield* setSlowFor("1500 millis")
        const [onServerA, onServerB] = yield* Effect.all([
          onA(c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_SLOW }, withResponse: true })).pipe(
            expectStatus(200)
          ),
          onB(Effect.delay(adminOnB.adminCronJobs.run({ path: { id: TEST_SLOW }, withResponse: true }), "300 millis"))
            .pipe(expectStatus(200))
        ], { concurrency: "unbounded" })
        assert.strictEqual(onServerA.data.id, onServerB.data.id)
        assert.deepStrictEqual(onServerA.data, onServerB.data)
        assert.strictEqual(onServerA.data.status, "succeeded")

        const rows = yield* onA(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ id: string }>`SELECT id FROM job_runs WHERE tenant_id = ${c.tenant.id} AND job_id = ${TEST_SLOW}`)
        )
        assert.deepStrictEqual(
          rows.map((row) =>
            Number(row.id)
          ),
          [onServerA.data.id]
        )
      })),
    { timeout: 120_000 }
  )
})
