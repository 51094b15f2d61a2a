import { assert, describe, it, layer } from "@effect/vitest"
import { busPayloadsOf, RealtimeBus } from "@timebank/server"
import { Effect } from "effect"
import { asJson, expectOk, expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { pay } from "../fixtures/ledger.js"
import { dispatchSettled } from "../fixtures/notifications.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { connectedSocketOf, type Frame, isNotification, openSocket, socketOf } from "./realtimeSocket.js"

const funded = () => community({ settings: { starting_balance: 0 }, fund: { member: 20 }, members: 1 })

/** Frames other than heartbeats. */
const content = (frames: ReadonlyArray<Frame>) => frames.filter((f) => f.type !== "ping")

describe("realtime bus messages", () => {
  it("a large batch is split into NOTIFY-sized payloads that keep every pair", () => {
    const notificationIds = Array.from({ length: 3000 }, (_, i) => 9_000_000_000 + i)
    const userIds = notificationIds.map((id) => id - 1_000_000_000)
    const payloads = busPayloadsOf({ tenantId: 7, notificationIds, userIds })
    assert.isAbove(payloads.length, 1)
    for (const p of payloads) assert.isAtMost(Buffer.byteLength(p), 7999)
    const parsed = payloads.map((p) =>
      JSON.parse(p) as { tenantId: number; notificationIds: Array<number>; userIds: Array<number> }
    )
    assert.deepStrictEqual(parsed.flatMap((m) => m.notificationIds), notificationIds)
    assert.deepStrictEqual(parsed.flatMap((m) => m.userIds), userIds)
    assert.isTrue(parsed.every((m) => m.tenantId === 7 && m.notificationIds.length === m.userIds.length))
  })
})

layer(TestApp({ REALTIME_HEARTBEAT: "300 millis", REALTIME_MAX_SOCKETS_PER_USER: "2" }), {
  excludeTestServices: true,
  timeout: "180 seconds"
})("GET /api/v2/realtime", (it) => {
  describe("connecting", () => {
    it.effect("a plain GET (no Upgrade) → 426 UPGRADE_REQUIRED in the error envelope", () =>
      Effect.gen(function*() {
        const c = yield* community()
        // Raw: the route is outside the contract, and the check is the plain-HTTP answer itself.
        const res = yield* rawRequest("GET", "/api/v2/realtime", { headers: c.member.headers })
        assert.strictEqual(res.status, 426)
        assert.deepStrictEqual(res.body, {
          errors: [{ code: "UPGRADE_REQUIRED", message: "This endpoint speaks WebSocket only" }]
        })
      }))

    it.scoped("no token, a bad token, another tenant's token or an unknown tenant → closed with 4401", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const elsewhere = yield* community()
        const token = (c.member.headers["authorization"] ?? "").replace(/^Bearer /, "")
        const attempts = [
          { query: { tenant: String(c.tenant.id) } },
          { query: { tenant: String(c.tenant.id), token: "not-a-token" } },
          { query: { tenant: String(elsewhere.tenant.id), token } },
          { query: { tenant: "no-such-community", token } },
          { query: { token } },
          { headers: { ...tenantHeaders(c.tenant), authorization: "Bearer not-a-token" } }
        ]
        for (const attempt of attempts) {
          const socket = yield* openSocket(attempt)
          const closed = yield* socket.closed()
          assert.strictEqual(closed.code, 4401, JSON.stringify(attempt))
          assert.deepStrictEqual(socket.frames, [], JSON.stringify(attempt))
        }
      }))

    it.scoped("a good token: the first frame is the member's counts, as GET /notifications/counts has them", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 2 }).pipe(expectStatus(201))
        yield* dispatchSettled
        const socket = yield* socketOf(c.other)
        const first = yield* socket.frame(() => true)
        const counts = yield* expectOk(c.other.client.notifications.counts())
        assert.deepStrictEqual(first, { type: "counts", data: asJson(counts.data) as Record<string, unknown> })
        assert.isAtLeast(counts.data.transactions, 1)
      }))

    it.scoped("the token as Authorization and the tenant as X-Tenant-ID or ?tenant=<slug> work too", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const byHeaders = yield* openSocket({ headers: c.member.headers })
        yield* byHeaders.frame((f) => f.type === "counts")
        const bySlug = yield* openSocket({
          query: { tenant: c.tenant.slug },
          headers: { authorization: c.member.headers["authorization"] ?? "" }
        })
        yield* bySlug.frame((f) => f.type === "counts")
      }))

    it.scoped("heartbeats: a ping frame every REALTIME_HEARTBEAT", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const socket = yield* connectedSocketOf(c.member)
        const firstPing = yield* socket.frame((f) => f.type === "ping", { timeout: "3 seconds" })
        assert.deepStrictEqual(firstPing, { type: "ping" })
        yield* socket.frame((f) => f.type === "ping", {
          from: socket.frames.indexOf(firstPing) + 1,
          timeout: "3 seconds"
        })
      }))

    it.scoped("one socket too many for a member closes their oldest with 4429; the others stay open", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const oldest = yield* connectedSocketOf(c.member)
        const second = yield* connectedSocketOf(c.member)
        const third = yield* connectedSocketOf(c.member)
        const closed = yield* oldest.closed()
        assert.strictEqual(closed.code, 4429)
        assert.match(closed.reason, /too many sockets/)
        assert.isTrue(second.isOpen() && third.isOpen())
        // Another member's sockets do not count against this one's.
        const others = yield* connectedSocketOf(c.other)
        assert.isTrue(others.isOpen() && second.isOpen())
      }))
  })

  describe("frames", () => {
    it.scoped("a transfer: the receiver gets the notification, then fresh counts; nobody else gets a frame", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const elsewhere = yield* community()
        yield* dispatchSettled
        const receiver = yield* connectedSocketOf(c.other)
        const receiverTwice = yield* connectedSocketOf(c.other)
        const bystander = yield* connectedSocketOf(c.members[0]!)
        const stranger = yield* connectedSocketOf(elsewhere.other)
        const before = receiver.frames[0]!.data!

        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 3, description: "Soup" }).pipe(
          expectStatus(201)
        )

        for (const socket of [receiver, receiverTwice]) {
          const frame = yield* socket.frame(isNotification("transaction_received"))
          const [bell] = (yield* expectOk(c.other.client.notifications.list({ urlParams: {} }))).data
          assert.deepStrictEqual(frame.data, asJson(bell) as Record<string, unknown>)
          const counts = yield* socket.frame((f) => f.type === "counts", { from: socket.frames.indexOf(frame) + 1 })
          assert.strictEqual(counts.data!["transactions"], (before["transactions"] as number) + 1)
          assert.strictEqual(counts.data!["total"], (before["total"] as number) + 1)
        }
        yield* Effect.sleep("300 millis")
        assert.lengthOf(content(bystander.frames), 1)
        assert.lengthOf(content(stranger.frames), 1)
      }))

    it.scoped("RealtimeBus.countsChanged: the member's sockets get fresh counts (after a read)", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 1 }).pipe(expectStatus(201))
        yield* dispatchSettled
        const socket = yield* connectedSocketOf(c.other)
        const unread = socket.frames[0]!.data!["total"] as number
        assert.isAtLeast(unread, 1)
        yield* expectOk(c.other.client.notifications.readAll())
        const from = socket.frames.length
        // Another publisher on the same bus, as a second process would be.
        yield* Effect.flatMap(RealtimeBus, (bus) => bus.countsChanged(c.tenant.id, c.other.id)).pipe(
          Effect.provide(RealtimeBus.Default)
        )
        const fresh = yield* socket.frame((f) => f.type === "counts", { from })
        assert.strictEqual(fresh.data!["total"], 0)
      }))
  })
})

layer(TestApp({ REALTIME_MAX_SOCKETS: "2" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "a process holding REALTIME_MAX_SOCKETS sockets",
  (it) => {
    it.scoped("refuses the next one with 1013 (try again later)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* connectedSocketOf(c.admin)
        yield* connectedSocketOf(c.member)
        const refused = yield* socketOf(c.other)
        assert.strictEqual((yield* refused.closed()).code, 1013)
        assert.deepStrictEqual(refused.frames, [])
      }))
  }
)
