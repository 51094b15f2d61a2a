import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { DomainEvents } from "@timebank/domain"
import { Outbox, type OutboxSubscriber, type PublisherOptions, runSubscriber } from "@timebank/server"
import { Deferred, Effect, Fiber, HashMap, Layer, Logger, Option } from "effect"
import { TestSqlLive } from "../fixtures/TestDatabase.js"

const fast: PublisherOptions = {
  pollInterval: "20 millis",
  batchSize: 2,
  maxAttempts: 3,
  retryBase: "10 millis",
  retryCap: "50 millis"
}

const PLATFORM_TENANT = 1

/** A real event marked for one test: the slug names the test, `tenant_id` carries the number n. */
const marked = (test: string, n: number) => new DomainEvents.TenantCreated({ tenant_id: n, slug: test })

/** Appends the events n of one test, in separate transactions. */
const appendAll = (test: string, ns: ReadonlyArray<number>) =>
  Effect.flatMap(
    Outbox,
    (outbox) => Effect.forEach(ns, (n) => outbox.appendFor(PLATFORM_TENANT, marked(test, n)), { discard: true })
  )

/** A subscriber that records the n of its test's events it accepted, and can be told to fail. */
const recorder = (name: string, fail: (n: number, attempt: number) => boolean = () => false) => {
  const seen: Array<number> = []
  const attempts = new Map<number, number>()
  const subscriber: OutboxSubscriber<"TenantCreated"> = {
    name,
    tags: ["TenantCreated"],
    handle: (event) =>
      Effect.suspend(() => {
        if (event.slug !== name) return Effect.void
        const n = event.tenant_id
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
        const { seen, subscriber } = recorder("order")
        yield* runSubscriber(subscriber, fast).pipe(Effect.forkScoped)

        // A slow transaction writes event 1 and stays open while 2 and 3 commit.
        const release = yield* Deferred.make<void>()
        const written = yield* Deferred.make<void>()
        const slow = yield* sql.withTransaction(
          outbox.appendFor(PLATFORM_TENANT, marked("order", 1)).pipe(
            Effect.zipRight(Deferred.succeed(written, undefined)),
            Effect.zipRight(Deferred.await(release))
          )
        ).pipe(Effect.fork)
        yield* Deferred.await(written)
        yield* appendAll("order", [2, 3])
        yield* Effect.sleep("300 millis")
        assert.deepStrictEqual(seen, [], "nothing after the open transaction's event may be handed on yet")

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(slow)
        yield* appendAll("order", [4, 5, 6])
        yield* waitFor(() => seen.length >= 6)
        assert.deepStrictEqual(seen, [1, 2, 3, 4, 5, 6])
      }).pipe(Effect.scoped))

    it.effect("writes a batch in one statement, in order, with the payload of today's rows", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const [before] = yield* sql<{ id: string | null }>`SELECT max(id) AS id FROM outbox_events`
        yield* outbox.appendAllFor(PLATFORM_TENANT, [
          new DomainEvents.TransactionCompleted({
            transaction_id: 7,
            type: "transfer",
            amount: 1.5,
            sender_id: 2,
            recipient_id: 3,
            listing_id: null,
            description: "Thanks"
          }),
          new DomainEvents.UserCreated({ user_id: 4, email: "a@example.org", role: "member", is_super_admin: false })
        ])
        const rows = yield* sql<{ event_type: string; payload: string; tenant_id: string }>`
          SELECT event_type, payload::text AS payload, tenant_id FROM outbox_events
          WHERE id > ${before!.id ?? 0} ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => r.event_type), ["TransactionCompleted", "UserCreated"])
        assert.deepStrictEqual(rows.map((r) => Number(r.tenant_id)), [PLATFORM_TENANT, PLATFORM_TENANT])
        assert.deepStrictEqual(JSON.parse(rows[0]!.payload), {
          transaction_id: 7,
          type: "transfer",
          amount: 1.5,
          sender_id: 2,
          recipient_id: 3,
          listing_id: null,
          description: "Thanks"
        })
        // Optional fields left out stay out of the payload (no `source: null`).
        assert.deepStrictEqual(JSON.parse(rows[1]!.payload), {
          user_id: 4,
          email: "a@example.org",
          role: "member",
          is_super_admin: false
        })
      }))

    it.effect("retries a failing subscriber with backoff, keeps order, and resumes from its cursor after a restart", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { attempts, seen, subscriber } = recorder("retry", (n, attempt) => n === 2 && attempt < 3)
        const running = yield* runSubscriber(subscriber, fast).pipe(Effect.fork)
        yield* appendAll("retry", [1, 2, 3])
        yield* waitFor(() => seen.length >= 3)
        assert.deepStrictEqual(seen, [1, 2, 3])
        assert.strictEqual(attempts.get(2), 3)
        yield* Fiber.interrupt(running)

        // A new publisher (another process, or after a crash) continues after the last handled event.
        yield* appendAll("retry", [4])
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
        const { attempts, seen, subscriber } = recorder("dead", (n) => n === 2)
        yield* runSubscriber(subscriber, fast).pipe(Effect.forkScoped)
        yield* appendAll("dead", [1, 2, 3])
        yield* waitFor(() => seen.length >= 2)
        assert.deepStrictEqual(seen, [1, 3])
        assert.strictEqual(attempts.get(2), fast.maxAttempts)
        const dead = yield* sql<{ attempts: number; last_error: string; n: number; reason: string }>`
          SELECT d.attempts, d.last_error, d.reason, (e.payload->>'tenant_id')::int AS n
          FROM outbox_dead_letters d JOIN outbox_events e ON e.id = d.event_id
          WHERE d.subscriber = 'dead' AND e.payload->>'slug' = 'dead'`
        assert.strictEqual(dead.length, 1)
        assert.strictEqual(dead[0]!.n, 2)
        assert.strictEqual(dead[0]!.attempts, fast.maxAttempts)
        assert.strictEqual(dead[0]!.reason, "failed")
        assert.include(dead[0]!.last_error, "refusing 2")
      }).pipe(Effect.scoped))

    it.effect("parks and logs a row that does not decode, and delivers the rows after it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { attempts, seen, subscriber } = recorder("parked")
        const logs: Array<string> = []
        const capture = Logger.make(({ annotations, message }) => {
          logs.push(
            `${String(message)} event_id=${String(HashMap.get(annotations, "event_id").pipe(Option.getOrUndefined))}`
          )
        })
        yield* appendAll("parked", [1])
        const [unknown] = yield* sql<{ id: string }>`
          INSERT INTO outbox_events (tenant_id, event_type, payload)
          VALUES (${PLATFORM_TENANT}, 'NoSuchEvent', '{"n": 2}'::jsonb) RETURNING id`
        const [malformed] = yield* sql<{ id: string }>`
          INSERT INTO outbox_events (tenant_id, event_type, payload)
          VALUES (${PLATFORM_TENANT}, 'TenantCreated', '{"tenant_id": "three", "slug": "parked"}'::jsonb) RETURNING id`
        yield* appendAll("parked", [4, 5])
        yield* runSubscriber(subscriber, fast).pipe(Effect.provide(Logger.add(capture)), Effect.forkScoped)
        yield* waitFor(() => seen.length >= 3)
        assert.deepStrictEqual(seen, [1, 4, 5])
        assert.strictEqual(attempts.size, 3, "a row that does not decode is not handed to the subscriber")

        const parked = yield* sql<{ event_id: string; attempts: number; reason: string; last_error: string }>`
          SELECT event_id, attempts, reason, last_error FROM outbox_dead_letters
          WHERE subscriber = 'parked' ORDER BY event_id`
        assert.deepStrictEqual(parked.map((p) => [p.event_id, p.reason, p.attempts]), [
          [unknown!.id, "undecodable", 0],
          [malformed!.id, "undecodable", 0]
        ])
        assert.include(parked[0]!.last_error, "unknown event type NoSuchEvent")
        assert.include(parked[1]!.last_error, "tenant_id")
        for (const row of [unknown!, malformed!]) {
          assert.isTrue(
            logs.some((line) => line.includes("does not decode; parked") && line.endsWith(`event_id=${row.id}`)),
            `row ${row.id} is logged`
          )
        }
      }).pipe(Effect.scoped))

    it.effect("hands a subscriber only the events of its tags, with the row's metadata", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* Outbox
        const seen: Array<{ readonly tag: string; readonly userId: number; readonly id: number }> = []
        const subscriber: OutboxSubscriber<"UserPasswordReset" | "UserErased"> = {
          name: "tags",
          tags: ["UserPasswordReset", "UserErased"],
          // `user_id` exists on both tags: the event is narrowed to them.
          handle: (event, meta) =>
            Effect.sync(() => {
              assert.strictEqual(meta.tenantId, PLATFORM_TENANT)
              assert.instanceOf(meta.createdAt, Date)
              seen.push({ tag: event._tag, userId: event.user_id, id: meta.id })
            })
        }
        yield* outbox.appendFor(PLATFORM_TENANT, new DomainEvents.UserPasswordReset({ user_id: 901 }))
        yield* appendAll("tags", [1, 2])
        yield* outbox.appendFor(PLATFORM_TENANT, new DomainEvents.UserErased({ user_id: 902, erased_by: 1 }))
        yield* outbox.appendFor(PLATFORM_TENANT, new DomainEvents.UserTwoFactorReset({ user_id: 903, reset_by: 1 }))
        yield* runSubscriber(subscriber, fast).pipe(Effect.forkScoped)
        yield* waitFor(() => seen.some((s) => s.userId === 902))
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(seen.map((s) => [s.tag, s.userId]), [["UserPasswordReset", 901], ["UserErased", 902]])
        const ids = yield* sql<{ id: string }>`
          SELECT id FROM outbox_events WHERE event_type IN ('UserPasswordReset', 'UserErased') ORDER BY id`
        assert.deepStrictEqual(seen.map((s) => s.id), ids.map((r) => Number(r.id)))

        // The other tags still move its cursor: it ends at the last event.
        const [last] = yield* sql<{ id: string }>`SELECT max(id) AS id FROM outbox_events`
        const [cursor] = yield* sql<{ event_id: string }>`SELECT event_id FROM outbox_cursors WHERE subscriber = 'tags'`
        assert.strictEqual(cursor!.event_id, last!.id)
      }).pipe(Effect.scoped))

    it.effect("retries each subscriber on its own: one failing keeps retrying while the other moves on", () =>
      Effect.gen(function*() {
        let stuck = true
        const slow = recorder("independent", (n) => n === 2 && stuck)
        const quick = recorder("independent")
        const patient: PublisherOptions = { ...fast, maxAttempts: 10_000, retryCap: "20 millis" }
        yield* runSubscriber({ ...slow.subscriber, name: "independent-slow" }, patient).pipe(Effect.forkScoped)
        yield* runSubscriber({ ...quick.subscriber, name: "independent-quick" }, patient).pipe(Effect.forkScoped)
        yield* appendAll("independent", [1, 2, 3, 4])
        yield* waitFor(() => quick.seen.length >= 4)
        assert.deepStrictEqual(quick.seen, [1, 2, 3, 4])
        yield* waitFor(() => (slow.attempts.get(2) ?? 0) >= 5)
        assert.deepStrictEqual(slow.seen, [1], "the failing subscriber is held at its failing event")

        stuck = false
        yield* waitFor(() => slow.seen.length >= 4)
        assert.deepStrictEqual(slow.seen, [1, 2, 3, 4])
        assert.strictEqual(quick.attempts.get(2), 1, "the other subscriber handled each event once")
      }).pipe(Effect.scoped))

    it.effect("handleMany takes a batch's events together; when it fails, each goes through handle", () =>
      Effect.gen(function*() {
        const one = recorder("together")
        const batches: Array<ReadonlyArray<number>> = []
        let refuse = false
        const subscriber: OutboxSubscriber<"TenantCreated"> = {
          ...one.subscriber,
          handleMany: (events) =>
            Effect.suspend(() => {
              const ours = events.filter((e) => e.event.slug === "together")
              if (refuse && ours.length > 0) return Effect.fail(new Error("refusing the batch"))
              batches.push(ours.map((e) => e.event.tenant_id))
              assert.isTrue(events.every((e) => e.meta.tenantId === PLATFORM_TENANT && e.meta.id > 0))
              return Effect.void
            })
        }
        yield* runSubscriber(subscriber, { ...fast, batchSize: 3 }).pipe(Effect.forkScoped)
        yield* Effect.flatMap(
          Outbox,
          (outbox) => outbox.appendAllFor(PLATFORM_TENANT, [1, 2, 3, 4].map((n) => marked("together", n)))
        )
        yield* waitFor(() => batches.flat().length >= 4)
        // Batches of at most three rows (the other tests' rows come first), in order, some of several events.
        assert.deepStrictEqual(batches.flat(), [1, 2, 3, 4])
        assert.isTrue(batches.every((b) => b.length <= 3) && batches.some((b) => b.length > 1))
        assert.deepStrictEqual(one.seen, [], "handle is not called when the batch went through")

        refuse = true
        yield* appendAll("together", [5])
        yield* waitFor(() => one.seen.length >= 1)
        assert.deepStrictEqual(one.seen, [5])
      }).pipe(Effect.scoped))
  }
)
