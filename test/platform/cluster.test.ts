import { ClusterSchema, Entity, SingleRunner } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Schedule, Schema } from "effect"
import { freshDatabase, pgClientLayer } from "../fixtures/TestDatabase.js"

/** A throw-away entity whose one persisted message records a value in a table. */
const Recorder = Entity.make("Recorder", [
  Rpc.make("Record", { payload: { value: Schema.String } }).annotate(ClusterSchema.Persisted, true)
])

/** Handlers that accept the message but never finish it: the runner stops before it is processed. */
const StuckRecorder = (received: Deferred.Deferred<void>) =>
  Recorder.toLayer(Effect.succeed({
    Record: () => Deferred.succeed(received, undefined).pipe(Effect.zipRight(Effect.never))
  }))

const WorkingRecorder = Recorder.toLayer(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const address = yield* Entity.CurrentAddress
  return {
    Record: ({ payload }) =>
      sql`INSERT INTO recorded (entity_id, value) VALUES (${address.entityId}, ${payload.value})`.pipe(Effect.orDie)
  }
}))

const runner = (url: string) =>
  SingleRunner.layer({
    shardingConfig: { entityMessagePollInterval: "100 millis", entityTerminationTimeout: "500 millis" }
  }).pipe(
    Layer.provideMerge(pgClientLayer(url))
  )

describe("cluster on SQL storage", () => {
  it.live(
    "a persisted entity message survives its runner stopping and is handled by the next runner",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase

        // First runner: the message is stored, delivered, and the runner stops before handling finishes.
        const received = yield* Deferred.make<void>()
        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE recorded (entity_id text NOT NULL, value text NOT NULL)`
          const client = (yield* Recorder.client)("ledger-1")
          yield* client.Record({ value: "first" }, { discard: true })
          yield* Deferred.await(received)
          const stored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_messages`
          assert.ok(stored[0]!.n >= 1, "the message is in cluster_messages")
        }).pipe(Effect.provide(StuckRecorder(received).pipe(Layer.provideMerge(runner(db.url)))), Effect.scoped)

        // Second runner, same database: it finds the unfinished message and handles it.
        const recorded = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ entity_id: string; value: string }>`SELECT entity_id, value FROM recorded`.pipe(
            Effect.filterOrFail((rows) => rows.length > 0),
            Effect.retry(Schedule.spaced("100 millis")),
            Effect.timeout("20 seconds")
          )
        }).pipe(Effect.provide(WorkingRecorder.pipe(Layer.provideMerge(runner(db.url)))), Effect.scoped)

        assert.deepStrictEqual(recorded, [{ entity_id: "ledger-1", value: "first" }])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
