import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { TenantCaches } from "@timebank/server"
import { type Duration, Effect, Layer, Schedule } from "effect"
import { codeOf } from "../fixtures/bodies.js"
import { busesOf, busListeners, redisSubscribers } from "../fixtures/bus.js"
import { community } from "../fixtures/community.js"
import { type Server, TestServerOn, twoServers } from "../fixtures/servers.js"
import { rawRequest } from "../fixtures/TestApp.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"
import { statsOf, useCaches } from "./cacheKit.js"

const BUSES = busesOf("CACHE_BUS")

const FEATURES = "/api/v2/admin/config/features"

const listeners = busListeners("timebank-cache")

/** Runners with rows (live or not) of `tenantId`'s counts. */
const runnersOf = (tenantId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ runner_id: string }>`SELECT DISTINCT runner_id FROM cache_runner_stats WHERE tenant_id = ${tenantId}`
  ).pipe(
    Effect.map((rows) => rows.map((r) => r.runner_id).sort()),
    Effect.orDie
  )

const runnerIdOf = Effect.map(TenantCaches, (caches) => caches.runnerId)

/** Repeats `effect` every 25 ms until `done`, for at most `limit`; fails the test with `what` otherwise. */
const eventually = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  done: (a: A) => boolean,
  limit: Duration.DurationInput,
  what: string
) =>
  effect.pipe(
    Effect.filterOrFail(done, () => "not yet" as const),
    Effect.retry({ schedule: Schedule.spaced("25 millis"), while: (e) => e === "not yet" }),
    Effect.timeoutFail({ duration: limit, onTimeout: () => new Error(`not within ${limit}: ${what}`) }),
    Effect.orDie
  )

describe("caches across two runners", () => {
  for (const bus of BUSES) {
    it.scopedLive(
      `a feature switched off on A is off on B at once; a clear on A empties B (${bus.transport})`,
      () =>
        Effect.gen(function*() {
          const { db, onA, onB } = yield* twoServers(bus.env)
          if (bus.transport === "postgres") assert.strictEqual(yield* onA(listeners), 2)
          else assert.strictEqual(yield* redisSubscribers(`${db.name}:cache`), 2)
          const c = yield* onA(community({ signIn: "token" }))

          // B resolves (and caches, for 5 s) the community while listings are on.
          const before = yield* onB(rawRequest("GET", "/api/v2/listings", { headers: c.memberHeaders }))
          assert.strictEqual(before.status, 200, before.text)
          const off = yield* onA(rawRequest("PUT", FEATURES, {
            headers: c.adminHeaders,
            body: JSON.stringify({ listings: false })
          }))
          assert.strictEqual(off.status, 200, off.text)
          const switchedAt = Date.now()
          const onBNow = yield* eventually(
            onB(rawRequest("GET", "/api/v2/listings", { headers: c.memberHeaders })),
            (res) => res.status === 403,
            "1 second",
            "B still serves listings"
          )
          assert.strictEqual(codeOf(onBNow.body), "FEATURE_DISABLED")
          assert.isBelow(Date.now() - switchedAt, 1_000)

          // B caches the community's configuration and switches; A's stats add B's counts once B wrote them.
          yield* onB(useCaches(c))
          const seen = yield* eventually(
            onA(statsOf(c.adminHeaders)),
            (s) => s["config-documents"]!.entries === 1,
            "5 seconds",
            "A's stats show B's entries"
          )
          assert.deepInclude(seen["federation-switches"], { entries: 1, misses: 1 })
          assert.deepStrictEqual(
            yield* onA(runnersOf(c.tenant.id)),
            [yield* onA(runnerIdOf), yield* onB(runnerIdOf)].sort()
          )

          const cleared = yield* onA(rawRequest("POST", "/api/v2/admin/cache/clear", { headers: c.adminHeaders }))
          assert.strictEqual(cleared.status, 200, cleared.text)
          assert.deepInclude((cleared.body as { data: { cleared: Array<unknown> } }).data.cleared, {
            name: "config-documents",
            entries: 1
          })
          // Right after the clear, on A: B's entries are gone; only A's own lookup for this stats request remains.
          const afterA = yield* onA(statsOf(c.adminHeaders))
          assert.strictEqual(afterA["config-documents"]!.entries, 0)
          assert.strictEqual(afterA["federation-switches"]!.entries, 0)
          assert.strictEqual(afterA["tenant-resolution"]!.entries, 1)
          // On B: its next public read of the configuration reads the database again.
          const afterB = yield* onB(statsOf(c.adminHeaders))
          assert.strictEqual(afterB["config-documents"]!.entries, 0)
          yield* onB(useCaches(c, 1))
          const refilled = yield* onB(statsOf(c.adminHeaders))
          assert.deepInclude(refilled["config-documents"], {
            entries: 1,
            hits: afterB["config-documents"]!.hits,
            misses: afterB["config-documents"]!.misses + 1
          })
        }),
      { timeout: 240_000 }
    )
  }

  it.scopedLive("a runner's stats rows go when it stops; the other runners' stay", () =>
    Effect.gen(function*() {
      const db = yield* freshDatabase
      const a = yield* Layer.build(TestServerOn(db.url, { CACHE_BUS: "postgres" }))
      const onA = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, a)
      const c = yield* onA(community({ signIn: "token" }))
      // A stats read writes the reading runner's rows first.
      yield* onA(statsOf(c.adminHeaders))
      const stopped = yield* Effect.scoped(Effect.gen(function*() {
        const b = yield* Layer.build(TestServerOn(db.url, { CACHE_BUS: "postgres" }))
        const onB = <X, E>(effect: Effect.Effect<X, E, Server>) => Effect.provide(effect, b)
        yield* onB(useCaches(c, 1))
        yield* onB(statsOf(c.adminHeaders))
        const runner = yield* onB(runnerIdOf)
        assert.deepStrictEqual(yield* onA(runnersOf(c.tenant.id)), [yield* onA(runnerIdOf), runner].sort())
        return runner
      }))
      assert.deepStrictEqual(yield* onA(runnersOf(c.tenant.id)), [yield* onA(runnerIdOf)])
      assert.notStrictEqual(stopped, yield* onA(runnerIdOf))
    }), { timeout: 240_000 })
})
