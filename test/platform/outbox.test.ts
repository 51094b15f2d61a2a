import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Outbox, type OutboxEvent, type PublisherOptions, runSubscriber } from "@timebank/server"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestSqlLive } from "../fixtures/TestDatabase.js"

const fast: PublisherOptions = {
  pollInterval: "20 millis",
  batchSize: 2,
  maxAttempts: 3,
  retryBase: "10 millis",
  retryCap: "50 millis"
}

const PLATFORM_TENANT = 1

/** Appends events of one test-unique type, numbered n, in separate transactions. */
const appendAll = (type: string, ns: ReadonlyArray<number>) =>
  Effect.flatMap(
    Outbox,
    (outbox) => Effect.forEach(ns, (n) => outbox.appendFor(PLATFORM_TENANT, type, { n }), { discard: true })
  )

/** A subscriber that records the `n` of the events of `type` it accepted, and can be told to fail. */
const recorder = (name: string, type: string, fail: (n: number, attempt: number) => boolean = () => false) => {
  const seen: Array<number> = []
  const attempts = new Map<number, number>()
  const subscriber = {
    name,
    handle: (event: OutboxEvent) =>
      Effect.suspend(() => {
        if (event.type !== type) return Effect.void
        const n = (event.payload as { n: number }).n
        const attempt = (attempts.get(n) ?? 0) + 1
        attempts.set(n, attempt)
        if (fail(n, attempt)) return Effect.fail(new Error(`refusing ${n} (attempt ${attempt})`))
        seen.push(n)
        return Effect.void
      })
  }
  return { subscriber, seen, attempts }
}

const waitFor = (cond: () => boolean, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const start = Date.now()
    while (!cond()) {
      if (Date.now() - start > timeoutMs) return yield* Effect.die(new Error("condition not reached in time"))
      yield* Effect.sleep("20 millis")
    }
  })

layer(Outbox.Default.pipe(Layer.provideMerge(TestSqlLive)), { excludeTestServices: true, timeout: "60 seconds" })(
  "outbox publisher",
  (it) => {
    it.effect("delivers in commit order and never skips an event of a transaction that commits late", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const { seen, subscriber } = recorder("order", "OrderTest")
        yield* runSubscriber(subscriber, fast).pipe(Effect.forkScoped)

        // A slow transaction writes event 1 and stays open while 2 and 3 commit.
        const release = yield* Deferred.make<void>()
        const written = yield* Deferred.make<void>()
        const slow = yield* sql.withTransaction(
          outbox.appendFor(PLATFORM_TENANT, "OrderTest", { n: 1 }).pipe(
            Effect.zipRight(Deferred.succeed(written, undefined)),
            Effect.zipRight(Deferred.await(release))
          )
        ).pipe(Effect.fork)
        yield* Deferred.await(written)
        yield* appendAll("OrderTest", [2, 3])
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(seen, [], "nothing after the open transaction's event may be handed on yet")

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(slow)
        yield* appendAll("OrderTest", [4, 5, 6])
        yield* waitFor(() => seen.length >= 6)
        assert.deepStrictEqual(seen, [1, 2, 3, 4, 5, 6])
      }).pipe(Effect.scoped))

    it.effect("retries a failing subscriber with backoff, keeps order, and resumes from its cursor after a restart", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { attempts, seen, subscriber } = recorder("retry", "RetryTest", (n, attempt) => n === 2 && attempt < 3)
        const running = yield* runSubscriber(subscriber, fast).pipe(Effect.fork)
        yield* appendAll("RetryTest", [1, 2, 3])
        yield* waitFor(() => seen.length >= 3)
        assert.deepStrictEqual(seen, [1, 2, 3])
        assert.strictEqual(attempts.get(2), 3)
        yield* Fiber.interrupt(running)

        // A new publisher (another process, or after a crash) continues after the last handled event.
        yield* appendAll("RetryTest", [4])
        const restarted = yield* runSubscriber(subscriber, fast).pipe(Effect.fork)
        yield* waitFor(() => seen.length >= 4)
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(seen, [1, 2, 3, 4])
        assert.strictEqual(attempts.get(1), 1, "an event handled before the restart is not handed over again")
        yield* Fiber.interrupt(restarted)

        const [cursor] = yield* sql<
          { event_id: string }
        >`SELECT event_id FROM outbox_cursors WHERE subscriber = 'retry'`
        const [last] = yield* sql<{ id: string }>`SELECT max(id) AS id FROM outbox_events`
        assert.strictEqual(cursor!.event_id, last!.id)
      }))

    it.effect("sets an event aside as a dead letter after the last attempt, and goes on with the next", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { attempts, seen, subscriber } = recorder("dead", "DeadTest", (n) => n === 2)
        yield* runSubscriber(subscriber, fast).pipe(Effect.forkScoped)
        yield* appendAll("DeadTest", [1, 2, 3])
        yield* waitFor(() => seen.length >= 2)
        assert.deepStrictEqual(seen, [1, 3])
        assert.strictEqual(attempts.get(2), fast.maxAttempts)
        const dead = yield* sql<{ attempts: number; last_error: string; n: number }>`
          SELECT d.attempts, d.last_error, (e.payload->>'n')::int AS n
          FROM outbox_dead_letters d JOIN outbox_events e ON e.id = d.event_id
          WHERE d.subscriber = 'dead'`
        assert.strictEqual(dead.length, 1)
        assert.strictEqual(dead[0]!.n, 2)
        assert.strictEqual(dead[0]!.attempts, fast.maxAttempts)
        assert.include(dead[0]!.last_error, "refusing 2")
      }).pipe(Effect.scoped))
  }
)
