import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { DomainEvents, FederationDeliveryId } from "@timebank/domain"
import { Outbox } from "@timebank/server"
import { Effect } from "effect"
import { randomInt } from "node:crypto"
import { asJson, expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { federationOn } from "../fixtures/federation.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import {
  afterSubscriber,
  attemptsOf,
  deliveriesOf,
  FAST_DELIVERY,
  partnerState,
  pid,
  setPartnerStatus
} from "./webhookKit.js"
import { eventually, partnerWithReceiver } from "./webhookReceiver.js"

/** A `member.opted_out` of a made-up member, straight into the outbox: it needs no opt-in nor toggle. */
const queueEvent = (tenantId: number) =>
  Effect.flatMap(Outbox, (outbox) => {
    const member = randomInt(1_000_000, 2_000_000)
    return outbox.appendFor(tenantId, new DomainEvents.MemberFederationOptedOut({ user_id: member, changed_by: 1 }))
  }).pipe(Effect.provide(Outbox.Default))

const did = (id: number) => FederationDeliveryId.make(id)

const sql = <A extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, run).pipe(Effect.orDie)

layer(TestApp(FAST_DELIVERY), { excludeTestServices: true, timeout: "120 seconds" })("webhook delivery", (it) => {
  it.scoped("a failing partner: retried with backoff, each attempt recorded; five failures open the breaker", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant, 500)
      yield* queueEvent(c.tenant.id)
      const opened = yield* eventually(
        "the breaker open",
        Effect.map(partnerState(p.id), (s) => s.open ? s : undefined)
      )
      assert.strictEqual(opened.status, "failed", "the breaker marks an active partner failed")
      assert.strictEqual(opened.consecutive_failures, 5)
      const [row] = yield* deliveriesOf(p.id)
      assert.deepStrictEqual([row!.status, row!.attempts, row!.last_status_code, row!.last_error], [
        "retrying",
        5,
        500,
        "answered with HTTP 500"
      ])
      const attempts = yield* attemptsOf(row!.id)
      assert.deepStrictEqual(
        attempts.map((a) => [a.status_code, a.error]),
        Array(5).fill([500, "answered with HTTP 500"])
      )
      // 200 ms × 2ⁿ, capped at 800 ms (the fast settings); the worker looks every 100 ms.
      const gaps = attempts.slice(1).map((a, i) => a.at_ms - attempts[i]!.at_ms)
      ;[200, 400, 800, 800].forEach((least, i) => assert.isAtLeast(gaps[i]!, least - 20, `gap ${i + 1}: ${gaps}`))
      assert.isAtMost(gaps[3]!, 800 + 600, `the cap holds: ${gaps}`)
      assert.strictEqual(p.receiver.received.length, 5)
      assert.isTrue(p.receiver.received.every((r) => r.signed && r.body.id === row!.webhook_id), "same webhook id")
      assert.strictEqual(new Set(p.receiver.received.map((r) => r.headers["x-federation-nonce"])).size, 5)

      // Two more events while it is open: nothing is sent until its time is up, then ONE probe, which fails and
      // opens it again.
      yield* queueEvent(c.tenant.id)
      yield* queueEvent(c.tenant.id)
      yield* afterSubscriber
      const openUntil = opened.breaker_open_until!.getTime()
      const reopened = yield* eventually(
        "the breaker open again",
        Effect.map(partnerState(p.id), (s) => s.open && s.breaker_open_until!.getTime() > openUntil ? s : undefined)
      )
      const reopenUntil = reopened.breaker_open_until!.getTime()
      assert.strictEqual(reopened.consecutive_failures, 6)
      assert.strictEqual(p.receiver.received.length, 6, "one probe per open period")
      assert.isAtLeast(p.receiver.received[5]!.at, openUntil - 50, "nothing while the breaker is open")

      // The partner recovers: the next probe succeeds, closes the breaker, and everything queued follows.
      p.receiver.mode = 204
      const rows = yield* eventually(
        "all three delivered",
        Effect.map(
          deliveriesOf(p.id),
          (rs) => rs.every((r) => r.status === "delivered") && rs.length === 3 ? rs : undefined
        ),
        20
      )
      assert.deepStrictEqual(rows.map((r) => r.last_status_code), [204, 204, 204])
      const closed = yield* partnerState(p.id)
      assert.deepStrictEqual([closed.status, closed.consecutive_failures, closed.breaker_open_until], [
        "active",
        0,
        null
      ])
      assert.strictEqual(p.receiver.received.length, 9, "the probe, then the two others")
      assert.isTrue(p.receiver.received.slice(6).every((r) => r.at >= reopenUntil - 50), "nothing while open again")
    }))

  it.scoped("a black-holed partner: each attempt ends as a timeout, recorded without a status code", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant, "hang")
      const healthy = yield* partnerWithReceiver(c.tenant, 200)
      yield* queueEvent(c.tenant.id)
      const [row] = yield* eventually(
        "a failed attempt",
        Effect.map(deliveriesOf(p.id), (rs) => rs[0]?.attempts ? rs : undefined)
      )
      const [attempt] = yield* attemptsOf(row!.id)
      assert.strictEqual(attempt!.status_code, null)
      assert.match(attempt!.error!, /^timeout: no complete answer within 1000 ms$/)
      assert.isAtLeast(attempt!.latency_ms, 950)
      assert.deepStrictEqual([row!.status, row!.last_status_code], ["retrying", null])
      // The healthy partner of the same community is not held up by the silent one.
      assert.strictEqual(healthy.receiver.received.length, 1)
      assert.isBelow(healthy.receiver.received[0]!.at - p.receiver.received[0]!.at, 500)
    }))

  it.scoped("dead after 8 attempts; an admin retry sends it once now, breaker open or not, and success closes it", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant, 503)
      yield* queueEvent(c.tenant.id)
      const [dead] = yield* eventually(
        "the delivery dead",
        Effect.map(deliveriesOf(p.id), (rs) => rs[0]?.status === "dead" ? rs : undefined),
        30
      )
      assert.strictEqual(dead!.attempts, 8)
      yield* Effect.sleep("300 millis")
      assert.strictEqual(p.receiver.received.length, 8, "nothing after the eighth attempt")
      assert.isTrue((yield* partnerState(p.id)).open)

      p.receiver.mode = 200
      const retried = yield* c.admin.client.federationDeliveries.retry({
        path: { id: pid(p.id), deliveryId: did(dead!.id) }
      }).pipe(expectOk)
      assert.deepInclude(asJson(retried.data) as object, {
        id: dead!.id,
        webhook_id: dead!.webhook_id,
        event: "member.opted_out",
        status: "delivered",
        attempts: 9,
        last_status_code: 200,
        last_error: null
      })
      assert.isNotNull(retried.data.delivered_at)
      assert.strictEqual(p.receiver.received.length, 9)
      assert.strictEqual(p.receiver.received[8]!.body.id, dead!.webhook_id, "a retry keeps the webhook id")
      assert.isTrue(p.receiver.received[8]!.signed)
      const closed = yield* partnerState(p.id)
      assert.deepStrictEqual([closed.status, closed.consecutive_failures, closed.open], ["active", 0, false])

      const again = yield* c.admin.client.federationDeliveries.retry({
        path: { id: pid(p.id), deliveryId: did(dead!.id) }
      }).pipe(expectError(409, "INVALID_STATE"))
      assert.match(again.message, /delivered/)
      assert.strictEqual(p.receiver.received.length, 9)
    }))

  it.scoped("deliveries list: newest first in offset pages, filtered by status; admins only, own partners only", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      for (let i = 0; i < 3; i++) yield* queueEvent(c.tenant.id)
      const rows = yield* eventually(
        "three delivered",
        Effect.map(
          deliveriesOf(p.id),
          (rs) => rs.length === 3 && rs.every((r) => r.status === "delivered") ? rs : undefined
        )
      )
      const list = (urlParams: Record<string, unknown>) =>
        c.admin.client.federationDeliveries.list({ path: { id: pid(p.id) }, urlParams })
      const first = yield* list({ per_page: 2 }).pipe(expectOk)
      assert.deepStrictEqual(first.data.map((d) => d.id), [rows[2]!.id, rows[1]!.id])
      assert.deepStrictEqual(first.meta, { current_page: 1, per_page: 2, total: 3, total_pages: 2, has_more: true })
      const item = asJson(first.data[0]) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(item).sort(), [
        "attempts",
        "created_at",
        "delivered_at",
        "event",
        "id",
        "last_error",
        "last_status_code",
        "next_attempt_at",
        "status",
        "webhook_id"
      ])
      assert.deepInclude(item, { webhook_id: rows[2]!.webhook_id, status: "delivered", attempts: 1 })
      const second = yield* list({ per_page: 2, page: 2 }).pipe(expectOk)
      assert.deepStrictEqual(second.data.map((d) => d.id), [rows[0]!.id])
      assert.strictEqual((yield* list({ status: "dead" }).pipe(expectOk)).meta.total, 0)
      assert.strictEqual((yield* list({ status: "delivered" }).pipe(expectOk)).meta.total, 3)

      const bad = yield* rawRequest("GET", `/api/v2/admin/federation/partners/${p.id}/deliveries?status=lost`, {
        headers: c.admin.headers
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual((bad.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field), ["status"])

      yield* c.member.client.federationDeliveries.list({ path: { id: pid(p.id) }, urlParams: {} }).pipe(
        expectError(403, "FORBIDDEN")
      )
      yield* c.member.client.federationDeliveries.retry({ path: { id: pid(p.id), deliveryId: did(rows[0]!.id) } })
        .pipe(expectError(403, "FORBIDDEN"))
      const elsewhere = yield* community({ signIn: "token" })
      yield* elsewhere.admin.client.federationDeliveries.list({ path: { id: pid(p.id) }, urlParams: {} }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* elsewhere.admin.client.federationDeliveries.retry({
        path: { id: pid(p.id), deliveryId: did(rows[0]!.id) }
      }).pipe(expectError(404, "NOT_FOUND"))
      // Another partner's delivery through this partner's path, and unknown ids.
      const q = yield* partnerWithReceiver(c.tenant)
      yield* c.admin.client.federationDeliveries.retry({ path: { id: pid(q.id), deliveryId: did(rows[0]!.id) } })
        .pipe(expectError(404, "NOT_FOUND"))
      yield* c.admin.client.federationDeliveries.retry({ path: { id: pid(p.id), deliveryId: did(999_999_999) } })
        .pipe(expectError(404, "NOT_FOUND"))
      yield* c.admin.client.federationDeliveries.list({ path: { id: pid(999_999_999) }, urlParams: {} }).pipe(
        expectError(404, "NOT_FOUND")
      )
    }))

  it.scoped("retry: a retrying delivery goes at once; pending ones and suspended partners are refused", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      yield* queueEvent(c.tenant.id)
      const [row] = yield* eventually(
        "delivered",
        Effect.map(deliveriesOf(p.id), (rs) => rs[0]?.status === "delivered" ? rs : undefined)
      )
      // Made to look failed and far from its next attempt, then not yet tried at all.
      const setRow = (status: string) =>
        sql((s) =>
          s`UPDATE federation_deliveries SET status = ${status}, next_attempt_at = now() + interval '1 hour',
                   delivered_at = NULL WHERE id = ${row!.id}`
        )
      const retry = c.admin.client.federationDeliveries.retry({ path: { id: pid(p.id), deliveryId: did(row!.id) } })

      yield* setRow("pending")
      yield* retry.pipe(expectError(409, "INVALID_STATE"))
      yield* setRow("retrying")
      yield* setPartnerStatus(p.id, "suspended")
      const refused = yield* retry.pipe(expectError(409, "INVALID_STATE"))
      assert.match(refused.message, /suspended/)
      assert.strictEqual(p.receiver.received.length, 1)

      yield* setPartnerStatus(p.id, "active")
      const sent = yield* retry.pipe(expectOk)
      assert.deepStrictEqual([sent.data.status, sent.data.attempts, sent.data.webhook_id], [
        "delivered",
        2,
        row!.webhook_id
      ])
      assert.strictEqual(p.receiver.received.length, 2)
    }))
})
