import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { FreshBells } from "@timebank/server"
import { Effect } from "effect"
import { busesOf, busListeners, redisSubscribers } from "../fixtures/bus.js"
import { asJson, expectOk, expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { pay } from "../fixtures/ledger.js"
import { dispatchSettled } from "../fixtures/notifications.js"
import { twoServers } from "../fixtures/servers.js"
import { TestApp } from "../fixtures/TestApp.js"
import { connectedSocketAt, connectedSocketOf, type Frame, isNotification, serverPort } from "./realtimeSocket.js"

const BUSES = busesOf("REALTIME_BUS")

const content = (frames: ReadonlyArray<Frame>) => frames.filter((f) => f.type !== "ping")

const listeners = busListeners("timebank-realtime")

/** A bell row made the way the dispatcher makes them (its own SQL), without a domain event. */
const insertBell = (tenantId: number, userId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        { id: string }
      >`INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, group_key)
      VALUES (${tenantId}, ${userId}, 'badge_awarded', 'social', 'A badge', 'You earned it', '/badges',
              'badge_awarded:/badges')
      RETURNING id`
  ).pipe(Effect.map((rows) => Number(rows[0]!.id)), Effect.orDie)

describe("realtime across two runners", () => {
  for (const bus of BUSES) {
    it.scopedLive(
      `a member on runner B gets the frames of bells made on runner A (${bus.transport})`,
      () =>
        Effect.gen(function*() {
          const { db, onA, onB } = yield* twoServers(bus.env)
          if (bus.transport === "postgres") assert.strictEqual(yield* onA(listeners), 2)
          else {
            assert.strictEqual(yield* onA(listeners), 0)
            assert.strictEqual(yield* redisSubscribers(`${db.name}:realtime`), 2)
          }

          const c = yield* onA(community({ settings: { starting_balance: 0 }, fund: { member: 20 }, members: 1 }))
          const elsewhere = yield* onA(community())
          yield* onA(dispatchSettled)
          const portB = yield* onB(serverPort)
          const receiver = yield* connectedSocketAt(portB, c.other)
          const bystander = yield* connectedSocketAt(portB, c.members[0]!)
          const stranger = yield* connectedSocketAt(portB, elsewhere.other)
          const before = receiver.frames[0]!.data!

          // As the dispatcher does on its runner: a committed bell, then its batch on that process's FreshBells.
          const id = yield* onA(insertBell(c.tenant.id, c.other.id))
          yield* onA(
            Effect.flatMap(FreshBells, (fresh) =>
              fresh.publish({ tenantId: c.tenant.id, notificationIds: [id], userIds: [c.other.id] }))
          )
          const badge = yield* receiver.frame(isNotification("badge_awarded"))
          assert.deepInclude(badge.data, {
            id,
            category: "social",
            title: "A badge",
            body: "You earned it",
            is_read: false
          })
          const afterBadge = yield* receiver.frame((f) =>
            f.type === "counts", {
            from: receiver.frames.indexOf(badge) + 1
          })
          assert.strictEqual(afterBadge.data!["social"], (before["social"] as number) + 1)
          assert.strictEqual(afterBadge.data!["total"], (before["total"] as number) + 1)

          // End to end: a transfer made through runner A rings the receiver's bell, wherever the dispatch runs.
          yield* onA(pay(c.member.client, { recipient_id: c.other.id, amount: 2 }).pipe(expectStatus(201)))
          const received = yield* receiver.frame(isNotification("transaction_received"))
          const [bell] = (yield* onA(expectOk(c.other.client.notifications.list({ urlParams: {} })))).data
          assert.deepStrictEqual(received.data, asJson(bell) as Record<string, unknown>)
          const counts = yield* receiver.frame((f) => f.type === "counts", {
            from: receiver.frames.indexOf(received) + 1
          })
          assert.deepStrictEqual(
            counts.data,
            asJson((yield* onA(expectOk(c.other.client.notifications.counts()))).data)
          )

          yield* Effect.sleep("300 millis")
          assert.lengthOf(content(bystander.frames), 1)
          assert.lengthOf(content(stranger.frames), 1)
        }),
      120_000
    )
  }
})

layer(TestApp({ REALTIME_BUS: "postgres" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "the PostgreSQL bus after its connection is killed",
  (it) => {
    it.scoped("listens again with backoff, sends its members fresh counts, and carries the next bells", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const socket = yield* connectedSocketOf(c.member)
        const from = socket.frames.length
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'timebank-realtime'`).pipe(Effect.orDie)
        // What was published while it was away is lost: the members get their counts again instead.
        yield* socket.frame((f) => f.type === "counts", { from })
        assert.strictEqual(yield* listeners, 1)
        const id = yield* insertBell(c.tenant.id, c.member.id)
        yield* Effect.flatMap(
          FreshBells,
          (fresh) => fresh.publish({ tenantId: c.tenant.id, notificationIds: [id], userIds: [c.member.id] })
        )
        const bell = yield* socket.frame(isNotification("badge_awarded"), { from })
        assert.strictEqual(bell.data!["id"], id)
      }))
  }
)
