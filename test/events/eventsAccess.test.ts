import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf } from "../fixtures/bodies.js"
import { expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import { community, visitor } from "../fixtures/community.js"
import { eventRow, hoursFromNow, inHours, makeEvent } from "../fixtures/events.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { makeTenant } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeUser } from "../fixtures/users.js"

const EVENTS = "/api/v2/events"

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events: access and limits", (it) => {
  describe("tenancy, roles and the feature gate", () => {
    it.effect("another community's event is 404 on every route, for its members and admins alike", () =>
      Effect.gen(function*() {
        const { admin, member } = yield* community()
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        const path = { id: foreign.id }
        for (const actor of [member, admin]) {
          const client = yield* ownAddressClient(actor)
          const routes: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
            ["GET", client.events.get({ path })],
            ["PUT", client.events.update({ path, payload: { title: "Mine" } })],
            ["POST cancel", client.events.cancel({ path, payload: {} })],
            ["DELETE", client.events.delete({ path })]
          ]
          for (const [route, call] of routes) {
            const failure = yield* call.pipe(expectError(404, "NOT_FOUND"))
            assert.strictEqual(failure.code, "NOT_FOUND", route)
          }
        }
        assert.include(yield* eventRow(foreign.id), { status: "active", title: foreign.title })
        // A poll of another community cannot be attached either (403, see create).
      }))

    it.effect("with events switched off every event route is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { admin, member, visitor: anonymous } = yield* community({ features: { events: false } })
        const event = yield* makeEvent(member)
        const path = { id: event.id }
        const organiser = yield* ownAddressClient(member)
        const routes: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
          ["GET /events", anonymous.client.events.list({ urlParams: {} })],
          ["GET /events/{id}", anonymous.client.events.get({ path })],
          [
            "POST /events",
            organiser.events.create({ payload: { title: "Gated", description: "x", start_time: hoursFromNow(3) } })
          ],
          ["PUT /events/{id}", organiser.events.update({ path, payload: { title: "Gated" } })],
          ["POST /events/{id}/cancel", organiser.events.cancel({ path, payload: {} })],
          ["DELETE /events/{id}", organiser.events.delete({ path })],
          ["GET /admin/events", admin.client.adminEvents.list({ urlParams: {} })],
          ["GET /admin/events/{id}", admin.client.adminEvents.get({ path })],
          ["POST /admin/events/{id}/cancel", admin.client.adminEvents.cancel({ path, payload: {} })],
          ["DELETE /admin/events/{id}", admin.client.adminEvents.delete({ path })]
        ]
        for (const [route, call] of routes) {
          const failure = yield* call.pipe(expectError(403, "FEATURE_DISABLED"))
          assert.strictEqual(failure.code, "FEATURE_DISABLED", route)
        }
        assert.include(yield* eventRow(event.id), { status: "active", title: event.title })
        const elsewhere = yield* visitor(yield* makeTenant())
        yield* elsewhere.client.events.list({ urlParams: {} }).pipe(expectOk)
      }))
  })

  // Raw: the rate-limit headers are the point.
  describe("rate limits", () => {
    it.effect("create: 10 per minute per IP, then 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { memberHeaders, visitor } = yield* community()
        const headers = { ...memberHeaders, ...fromIp(randomIp()) }
        const body = JSON.stringify({ title: "Quick", description: "x", start_time: inHours(2) })
        for (let i = 0; i < 10; i++) {
          const res = yield* rawRequest("POST", EVENTS, { headers, body })
          assert.strictEqual(res.status, 201, `${i}: ${res.text}`)
          assert.strictEqual(res.headers["x-ratelimit-limit"], "10")
          assert.strictEqual(res.headers["x-ratelimit-remaining"], String(9 - i))
        }
        const limited = yield* rawRequest("POST", EVENTS, { headers, body })
        assert.strictEqual(limited.status, 429, limited.text)
        assert.strictEqual(codeOf(limited.body), "RATE_LIMITED")
        assert.isAtLeast(Number(limited.headers["retry-after"]), 1)
        assert.strictEqual((yield* visitor.client.events.list({ urlParams: { per_page: 50 } })).data.length, 10)
        const elsewhere = yield* rawRequest("POST", EVENTS, {
          headers: { ...memberHeaders, ...fromIp(randomIp()) },
          body
        })
        assert.strictEqual(elsewhere.status, 201)
        const read = yield* rawRequest("GET", EVENTS, { headers })
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.headers["x-ratelimit-limit"], undefined)
      }))

    it.effect("delete: 10 per minute per IP, then 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const events = yield* Effect.forEach(Array.from({ length: 11 }), () => makeEvent(member))
        const headers = { ...memberHeaders, ...fromIp(randomIp()) }
        for (const [i, event] of events.slice(0, 10).entries()) {
          const res = yield* rawRequest("DELETE", `${EVENTS}/${event.id}`, { headers })
          assert.strictEqual(res.status, 200, `${i}: ${res.text}`)
          assert.strictEqual(res.headers["x-ratelimit-remaining"], String(9 - i))
        }
        const limited = yield* rawRequest("DELETE", `${EVENTS}/${events[10]!.id}`, { headers })
        assert.strictEqual(limited.status, 429, limited.text)
        assert.strictEqual(codeOf(limited.body), "RATE_LIMITED")
        assert.isAtLeast(Number(limited.headers["retry-after"]), 1)
        assert.isDefined(yield* eventRow(events[10]!.id))
      }))
  })
})
