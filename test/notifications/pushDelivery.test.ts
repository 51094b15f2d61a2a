import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type FanoutReport, PushFanout } from "@timebank/server"
import { ConfigProvider, Duration, Effect, Schedule } from "effect"
import { expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { pay } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import { PushFakes, type Received, withPushFakes } from "./pushFakes.js"

const hex = (prefix: string) => prefix + "0".repeat(64 - prefix.length)

/** A bell as the dispatcher writes it (already in the recipient's language). */
const insertBell = (user: Actor, type: string, link: string, title = "A title", message = "A message") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`
      INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, group_key)
      VALUES (${user.tenant.id}, ${user.id}, ${type}, 'transactions', ${title}, ${message}, ${link},
              ${`${type}:${link}`})
      RETURNING id`).pipe(Effect.map((rows) => Number(rows[0]!.id)), Effect.orDie)

/** What the fan-out does with these bells, as the background fiber would on a FreshBells batch. */
const deliver = (owner: Actor, notificationIds: ReadonlyArray<number>) =>
  Effect.flatMap(PushFanout, (fanout) =>
    fanout.deliver({
      tenantId: owner.tenant.id,
      notificationIds,
      userIds: notificationIds.map(() => owner.id)
    })).pipe(Effect.provide(PushFanout.Default))

const receivedBy = (targets: ReadonlyArray<string>) =>
  Effect.map(PushFakes, (f) => f.received.filter((r) => targets.includes(r.target)))

const subscriptionCount = (user: Actor) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = ${user.id}`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

const webTarget = (endpoint: string) => new URL(endpoint).pathname

const report = (r: Partial<FanoutReport>): FanoutReport => ({ sent: 0, gone: 0, failed: 0, skipped: 0, ...r })

layer(withPushFakes((config) => TestApp(config)), { excludeTestServices: true, timeout: "120 seconds" })(
  "push delivery",
  (it) => {
    it.effect("a transfer's bell reaches the receiver's browser, FCM and APNs devices, in the bell's words", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const { member, other } = yield* community({ fund: { other: 5 } })
        const browser = fakes.webDevice(`e2e-${member.id}`)
        const fcmToken = `fcm-e2e-${member.id}`
        const apnsToken = hex(`e2e${member.id}`.replace(/[^0-9a-f]/g, "e"))
        yield* member.client.push.subscribe({ payload: browser }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "fcm", token: fcmToken } }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "apns", token: apnsToken } }).pipe(expectOk)

        yield* pay(other.client, { recipient_id: member.id, amount: 2 }).pipe(expectStatus(201))

        const targets = [webTarget(browser.endpoint), fcmToken, apnsToken]
        const got = yield* receivedBy(targets).pipe(
          Effect.filterOrFail((r) => r.length >= 3),
          Effect.retry(Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(Duration.seconds(20))))
        )
        assert.deepStrictEqual(fakes.rejected, [])
        const bell = (yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ id: string; title: string; message: string; link: string | null }>`
            SELECT id, title, message, link FROM notifications
            WHERE user_id = ${member.id} AND type = 'transaction_received'`))[0]!
        const byChannel = (c: Received["channel"]) =>
          got.find((r) =>
            r.channel === c
          )!.payload
        assert.deepStrictEqual(byChannel("web"), {
          title: bell.title,
          body: bell.message,
          link: bell.link,
          type: "transaction_received",
          notification_id: Number(bell.id)
        })
        assert.deepInclude(byChannel("fcm"), {
          token: fcmToken,
          notification: { title: bell.title, body: bell.message }
        })
        assert.deepInclude(byChannel("fcm")["data"] as object, {
          notification_id: bell.id,
          type: "transaction_received"
        })
        assert.deepInclude(byChannel("apns"), {
          aps: { alert: { title: bell.title, body: bell.message }, sound: "default" },
          notification_id: Number(bell.id),
          link: bell.link
        })
      }))

    it.effect("404/410 from a push service deletes that subscription; the others stay", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const { member } = yield* community()
        yield* member.client.push.subscribe({ payload: fakes.webDevice(`gone-${member.id}`) }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "fcm", token: `fcm-gone-token-${member.id}` } })
          .pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "apns", token: hex("dead") } }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "fcm", token: `fcm-alive-token-${member.id}` } })
          .pipe(
            expectOk
          )
        const id = yield* insertBell(member, "welcome", "/welcome")
        assert.deepStrictEqual(yield* deliver(member, [id]), report({ sent: 1, gone: 3 }))
        assert.strictEqual(yield* subscriptionCount(member), 1)
        assert.deepStrictEqual(yield* Effect.map(expectOk(member.client.push.status()), (r) => r.data.mobile), 1)
      }))

    it.effect("a failing device stops neither the other devices nor the other channel", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const { member } = yield* community()
        const broken = fakes.webDevice(`broken-${member.id}`)
        const fine = fakes.webDevice(`fine-${member.id}`)
        for (const device of [broken, fine]) yield* member.client.push.subscribe({ payload: device }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "apns", token: hex("bad") } }).pipe(expectOk)
        yield* member.client.push.subscribe({ payload: { platform: "fcm", token: `fcm-ok-token-${member.id}` } }).pipe(
          expectOk
        )
        const id = yield* insertBell(member, "welcome", "/hello", "Hallo", "Willkommen")
        assert.deepStrictEqual(yield* deliver(member, [id]), report({ sent: 2, failed: 2 }))
        const got = yield* receivedBy([webTarget(fine.endpoint), `fcm-ok-token-${member.id}`])
        assert.deepStrictEqual(got.map((r) => r.channel).sort(), ["fcm", "web"])
        assert.include(got.find((r) => r.channel === "web")!.payload, { title: "Hallo", body: "Willkommen" })
        // Failures are not "gone": the devices are kept for the next push.
        assert.strictEqual(yield* subscriptionCount(member), 4)
      }))

    it.effect("the same group within 60 seconds is pushed once; another group is pushed", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const { member } = yield* community()
        const device = fakes.webDevice(`dedupe-${member.id}`)
        yield* member.client.push.subscribe({ payload: device }).pipe(expectOk)
        const first = yield* insertBell(member, "new_message", "/messages/1")
        const twin = yield* insertBell(member, "new_message", "/messages/1")
        // Two bells of one group in one batch: one push.
        assert.deepStrictEqual(yield* deliver(member, [first, twin]), report({ sent: 1 }))
        const later = yield* insertBell(member, "new_message", "/messages/1")
        assert.deepStrictEqual(yield* deliver(member, [later]), report({}))
        const otherGroup = yield* insertBell(member, "new_message", "/messages/2")
        assert.deepStrictEqual(yield* deliver(member, [otherGroup]), report({ sent: 1 }))
        const got = yield* receivedBy([webTarget(device.endpoint)])
        assert.deepStrictEqual(got.map((r) => r.payload["link"]), ["/messages/1", "/messages/2"])
      }))

    it.effect("push_enabled=false: nothing is sent nor logged", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const { member } = yield* community()
        const device = fakes.webDevice(`off-${member.id}`)
        yield* member.client.push.subscribe({ payload: device }).pipe(expectOk)
        yield* member.client.users.updateNotifications({ payload: { push_enabled: false } }).pipe(expectOk)
        const id = yield* insertBell(member, "welcome", "/off")
        assert.deepStrictEqual(yield* deliver(member, [id]), report({}))
        assert.deepStrictEqual(yield* receivedBy([webTarget(device.endpoint)]), [])
        const logged = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM push_log WHERE user_id = ${member.id}`)
        assert.strictEqual(logged[0]!.n, 0)
      }))

    describe("without VAPID keys", () => {
      it.effect("web push is skipped silently; mobile is still sent", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          const { member } = yield* community()
          const device = fakes.webDevice(`novapid-${member.id}`)
          yield* member.client.push.subscribe({ payload: device }).pipe(expectOk)
          yield* member.client.push.subscribe({ payload: { platform: "fcm", token: `fcm-novapid-${member.id}` } }).pipe(
            expectOk
          )
          const id = yield* insertBell(member, "welcome", "/novapid")
          const { VAPID_PRIVATE_KEY: _, VAPID_PUBLIC_KEY: __, ...withoutVapid } = fakes.config
          const outcome = yield* deliver(member, [id]).pipe(
            Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(withoutVapid))))
          )
          assert.deepStrictEqual(outcome, report({ sent: 1, skipped: 1 }))
          assert.deepStrictEqual(
            (yield* receivedBy([webTarget(device.endpoint), `fcm-novapid-${member.id}`])).map((r) => r.channel),
            [
              "fcm"
            ]
          )
          assert.strictEqual(yield* subscriptionCount(member), 2)
        }))
    })
  }
)
