import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type ApiClient, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { PushFakes, withPushFakes } from "./pushFakes.js"

const APNS_TOKEN = "a".repeat(64)

const rowsOf = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ kind: string; endpoint: string }>`
      SELECT kind, endpoint FROM push_subscriptions WHERE user_id = ${userId} ORDER BY id`)

const statusOf = (client: ApiClient) => Effect.map(expectOk(client.push.status()), (r) => r.data)

layer(withPushFakes((config) => TestApp(config)), { excludeTestServices: true, timeout: "120 seconds" })(
  "push routes",
  (it) => {
    describe("vapid-key", () => {
      it.effect("answers the configured key without login or community, under /api/push and /api/v2/push", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          // Raw: no headers at all, which the typed client of a community never sends.
          for (const path of ["/api/push/vapid-key", "/api/v2/push/vapid-key"]) {
            const res = yield* rawRequest("GET", path)
            assert.strictEqual(res.status, 200, res.text)
            assert.deepStrictEqual(res.body, { data: { public_key: fakes.vapidPublicKey }, meta: {} })
          }
        }))
    })

    describe("subscribe", () => {
      it.effect("web: 201 with id and kind, the same endpoint again 200 and still one row; status counts it", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          const { member } = yield* community()
          const device = fakes.webDevice("sub-web")
          const first = yield* member.client.push.subscribe({ payload: device, withResponse: true }).pipe(
            expectStatus(201)
          )
          assert.strictEqual(first.data.kind, "web")
          const again = yield* member.client.pushV2.subscribe({ payload: device, withResponse: true }).pipe(
            expectStatus(200)
          )
          assert.deepStrictEqual(again.data, first.data)
          assert.deepStrictEqual(yield* rowsOf(member.id), [{ kind: "web", endpoint: device.endpoint }])
          assert.deepStrictEqual(yield* statusOf(member.client), { web: 1, mobile: 0, vapid_configured: true })
        }))

      it.effect("mobile: fcm and apns tokens are kept as devices; status counts them as mobile", () =>
        Effect.gen(function*() {
          const { member } = yield* community()
          const fcm = yield* member.client.push.subscribe({
            payload: { platform: "fcm", token: "fcm-token:abc_123" },
            withResponse: true
          }).pipe(expectStatus(201))
          const apns = yield* member.client.pushV2.subscribe({
            payload: { platform: "apns", token: APNS_TOKEN },
            withResponse: true
          }).pipe(expectStatus(201))
          assert.deepStrictEqual([fcm.data.kind, apns.data.kind], ["fcm", "apns"])
          yield* member.client.push.subscribe({ payload: { platform: "fcm", token: "fcm-token:abc_123" } }).pipe(
            expectOk
          )
          assert.deepStrictEqual(yield* statusOf(member.client), { web: 0, mobile: 2, vapid_configured: true })
        }))

      it.effect("401 without a token, on every authenticated route", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          const { visitor } = yield* community()
          yield* visitor.client.push.subscribe({ payload: fakes.webDevice("anon") }).pipe(
            expectError(401, "AUTH_REQUIRED")
          )
          yield* visitor.client.pushV2.unsubscribe({ payload: { token: "x" } }).pipe(expectError(401, "AUTH_REQUIRED"))
          yield* visitor.client.push.status().pipe(expectError(401, "AUTH_REQUIRED"))
        }))

      it.effect("422 names the bad field: endpoint, keys, platform, token", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          const { member } = yield* community()
          const { keys } = fakes.webDevice("bad")
          // Raw: bodies the typed client would refuse to encode.
          const cases: Array<[Record<string, unknown>, string]> = [
            [{ endpoint: "ftp://push.example/x", keys }, "endpoint"],
            [{ endpoint: `https://push.example/${"x".repeat(2100)}`, keys }, "endpoint"],
            [{ endpoint: "https://push.example/x" }, "keys"],
            [{ endpoint: "https://push.example/x", keys: { ...keys, p256dh: "not base64!" } }, "keys.p256dh"],
            [{ endpoint: "https://push.example/x", keys: { ...keys, auth: "AAAA" } }, "keys.auth"],
            [{ platform: "fcm" }, "token"],
            [{ token: "fcm-token" }, "platform"],
            [{ platform: "huawei", token: "fcm-token" }, "platform"],
            [{ platform: "apns", token: "not-hex-token" }, "token"],
            [{}, "endpoint"]
          ]
          for (const [body, field] of cases) {
            const res = yield* rawRequest("POST", "/api/push/subscribe", {
              headers: member.headers,
              body: JSON.stringify(body)
            })
            assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`)
            const errors = (res.body as { errors: Array<{ code: string; field?: string }> }).errors
            assert.deepStrictEqual(errors.map((e) => [e.code, e.field]), [["VALIDATION_ERROR", field]], res.text)
          }
          assert.deepStrictEqual(yield* rowsOf(member.id), [])
        }))
    })

    describe("unsubscribe", () => {
      it.effect("removes only the caller's subscription: another member's same endpoint stays; again → 0", () =>
        Effect.gen(function*() {
          const fakes = yield* PushFakes
          const { member, other } = yield* community()
          const shared = fakes.webDevice("shared")
          const mine = fakes.webDevice("mine")
          yield* member.client.push.subscribe({ payload: shared }).pipe(expectOk)
          yield* member.client.push.subscribe({ payload: mine }).pipe(expectOk)
          yield* other.client.push.subscribe({ payload: shared }).pipe(expectOk)

          // Another member cannot remove the member's endpoint.
          const foreign = yield* other.client.push.unsubscribe({ payload: { endpoint: mine.endpoint } }).pipe(expectOk)
          assert.deepStrictEqual(foreign.data, { removed: 0 })
          assert.strictEqual((yield* statusOf(member.client)).web, 2)

          const removed = yield* member.client.pushV2.unsubscribe({ payload: { endpoint: shared.endpoint } }).pipe(
            expectOk
          )
          assert.deepStrictEqual(removed.data, { removed: 1 })
          assert.deepStrictEqual((yield* rowsOf(member.id)).map((r) => r.endpoint), [mine.endpoint])
          assert.deepStrictEqual((yield* rowsOf(other.id)).map((r) => r.endpoint), [shared.endpoint])
          const again = yield* member.client.push.unsubscribe({ payload: { endpoint: shared.endpoint } }).pipe(expectOk)
          assert.deepStrictEqual(again.data, { removed: 0 })
        }))

      it.effect("a device token is removed by {token}; another community's member with it keeps theirs", () =>
        Effect.gen(function*() {
          const here = yield* community()
          const there = yield* community()
          for (const c of [here, there]) {
            yield* c.member.client.push.subscribe({ payload: { platform: "apns", token: APNS_TOKEN } }).pipe(expectOk)
          }
          const removed = yield* here.member.client.push.unsubscribe({ payload: { token: APNS_TOKEN } }).pipe(expectOk)
          assert.deepStrictEqual(removed.data, { removed: 1 })
          assert.strictEqual((yield* statusOf(here.member.client)).mobile, 0)
          assert.strictEqual((yield* statusOf(there.member.client)).mobile, 1)
        }))

      it.effect("422 unless exactly one of endpoint and token", () =>
        Effect.gen(function*() {
          const { member } = yield* community()
          for (const body of [{}, { endpoint: "https://push.example/x", token: "abc" }, { token: "" }]) {
            const res = yield* rawRequest("POST", "/api/v2/push/unsubscribe", {
              headers: member.headers,
              body: JSON.stringify(body)
            })
            assert.strictEqual(res.status, 422, res.text)
            assert.strictEqual((res.body as { errors: Array<{ code: string }> }).errors[0]!.code, "VALIDATION_ERROR")
          }
        }))
    })
  }
)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("push without VAPID keys", (it) => {
  it.effect("vapid-key is null and status says web push is not configured", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/api/push/vapid-key")
      assert.deepStrictEqual(res.body, { data: { public_key: null }, meta: {} })
      const { member } = yield* community()
      assert.deepStrictEqual(yield* statusOf(member.client), { web: 0, mobile: 0, vapid_configured: false })
    }))
})
