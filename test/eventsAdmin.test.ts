import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { community as baseCommunity } from "./fixtures/community.js"
import { insertRsvp, insertWaitlistEntry, linkOccurrences, makeEvent } from "./fixtures/events.js"
import { makeTenant } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((e) => e.id)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ADMIN_EVENTS = "/api/v2/admin/events"
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

/** The shared community, its admin's headers also as `headers`. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.map(baseCommunity(overrides), (c) => ({ ...c, headers: c.adminHeaders }))

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const eventRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Record<string, unknown>>`SELECT * FROM events WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]))
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin events", (it) => {
  describe("list", () => {
    it.effect("every status, occurrences included, most recent start first; filters and offset meta", () =>
      Effect.gen(function*() {
        const { headers, member, tenant } = yield* community()
        const other = yield* makeUser(tenant)
        const pastA = yield* makeEvent(member, { title: "Old_picnic 50%", startsInHours: -48 })
        const pastB = yield* makeEvent(other, { title: "Old walk", startsInHours: -24, status: "cancelled" })
        const soon = yield* makeEvent(member, { title: "Soon picnic", startsInHours: 2 })
        const later = yield* makeEvent(other, { title: "Later quiz", startsInHours: 20, status: "cancelled" })
        const template = yield* makeEvent(member, { title: "Weekly picnic", startsInHours: 30 })
        const occurrence = yield* makeEvent(member, { title: "Weekly picnic", startsInHours: 40 })
        yield* linkOccurrences(template, [occurrence])
        yield* makeEvent(yield* makeUser(yield* makeTenant()), { title: "Elsewhere picnic" })
        const newestFirst = [occurrence, template, later, soon, pastB, pastA].map((e) => e.id)

        const page = (query: string) =>
          Effect.map(call("GET", `${ADMIN_EVENTS}${query}`, headers), (res) => {
            assert.strictEqual(res.status, 200, res.text)
            return res.body as { data: Array<{ id: number }>; meta: Record<string, unknown> }
          })
        const all = yield* page("")
        assert.deepStrictEqual(all.data.map((e) => e.id), newestFirst)
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 6, total_pages: 1, has_more: false })
        const second = yield* page("?per_page=4&page=2")
        assert.deepStrictEqual(second.data.map((e) => e.id), newestFirst.slice(4))
        assert.deepStrictEqual(second.meta, { current_page: 2, per_page: 4, total: 6, total_pages: 2, has_more: false })
        assert.deepStrictEqual((yield* page("?per_page=4")).meta["has_more"], true)

        const ids = (query: string) => Effect.map(page(query), (p) => p.data.map((e) => e.id))
        assert.deepStrictEqual(yield* ids("?status=cancelled"), [later.id, pastB.id])
        assert.deepStrictEqual(yield* ids("?status=active"), [occurrence.id, template.id, soon.id, pastA.id])
        assert.deepStrictEqual(yield* ids("?when=upcoming"), [soon.id, later.id, template.id, occurrence.id])
        assert.deepStrictEqual(yield* ids("?when=past"), [pastB.id, pastA.id])
        assert.deepStrictEqual(yield* ids(`?user_id=${other.id}`), [later.id, pastB.id])
        assert.deepStrictEqual(yield* ids("?search=PICNIC&when=upcoming"), [soon.id, template.id, occurrence.id])
        assert.deepStrictEqual(yield* ids("?search=d_p"), [pastA.id])
        assert.deepStrictEqual(yield* ids("?search=50%25"), [pastA.id])
        assert.deepStrictEqual(yield* ids("?search=old%25walk"), [])
        assert.deepStrictEqual(yield* ids(`?status=active&when=past&user_id=${member.id}`), [pastA.id])
        const filtered = yield* page("?status=cancelled&per_page=1")
        assert.deepStrictEqual(filtered.meta, {
          current_page: 1,
          per_page: 1,
          total: 2,
          total_pages: 2,
          has_more: true
        })
        const occurrenceCard = all.data.find((e) => e.id === occurrence.id)
        includes(occurrenceCard, { parent_event_id: template.id, status: "active" })
        includes(all.data.find((e) => e.id === template.id), { is_recurring_template: true })

        for (
          const [query, field] of [
            ["page=0", "page"],
            ["per_page=101", "per_page"],
            ["status=deleted", "status"],
            ["when=soon", "when"],
            ["user_id=x", "user_id"]
          ] as const
        ) {
          const res = yield* call("GET", `${ADMIN_EVENTS}?${query}`, headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
        // The typed client decodes the page.
        const client = yield* apiClient(headers)
        const typed = yield* client.adminEvents.list({ urlParams: { status: "cancelled" } })
        assert.deepStrictEqual(typed.data.map((e) => [e.id, e.status]), [[later.id, "cancelled"], [
          pastB.id,
          "cancelled"
        ]])
      }))
  })

  describe("roles and tenancy", () => {
    it.effect("members, brokers and coordinators get 403 on every admin route; anonymous callers 401", () =>
      Effect.gen(function*() {
        const { anonymous, memberHeaders, tenant } = yield* community()
        const event = yield* makeEvent(yield* makeUser(tenant))
        const staff = [
          memberHeaders,
          yield* authHeaders(yield* makeUser(tenant, { role: "broker" })),
          yield* authHeaders(yield* makeUser(tenant, { role: "coordinator" }))
        ]
        const routes: Array<readonly [Method, string, unknown?]> = [
          ["GET", ADMIN_EVENTS],
          ["GET", `${ADMIN_EVENTS}/${event.id}`],
          ["POST", `${ADMIN_EVENTS}/${event.id}/cancel`, {}],
          ["DELETE", `${ADMIN_EVENTS}/${event.id}`]
        ]
        for (const headers of staff) {
          for (const [method, path, body] of routes) {
            const res = yield* call(method, path, headers, body)
            assert.strictEqual(res.status, 403, `${method} ${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "FORBIDDEN")
          }
        }
        for (const [method, path, body] of routes) {
          const res = yield* call(method, path, anonymous, body)
          assert.strictEqual(res.status, 401, `${method} ${path}: ${res.text}`)
        }
        assert.include(yield* eventRow(event.id), { status: "active" })
      }))

    it.effect("a platform super-admin addressing a community administers its events", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const superAdmin = yield* makeSuperAdmin()
        const superHeaders = yield* authHeaders(superAdmin, tenant)
        const event = yield* makeEvent(member)
        const list = yield* call("GET", ADMIN_EVENTS, superHeaders)
        assert.strictEqual(list.status, 200, list.text)
        assert.deepStrictEqual(idsOf(list.body), [event.id])
        const cancelled = yield* call("POST", `${ADMIN_EVENTS}/${event.id}/cancel`, superHeaders, { reason: "Policy" })
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        includes((yield* outboxOf(tenant, "EventCancelled"))[0], { cancelled_by: superAdmin.id, reason: "Policy" })
        const deleted = yield* call("DELETE", `${ADMIN_EVENTS}/${event.id}`, superHeaders)
        assert.strictEqual(deleted.status, 200, deleted.text)
        includes((yield* outboxOf(tenant, "EventDeleted"))[0], { deleted_by: superAdmin.id, event_id: event.id })
      }))

    it.effect("an event of another community is 404 on every {id} route, for its admin and a super-admin alike", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const foreign = yield* makeEvent(b.member)
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), a.tenant)
        const routes: Array<readonly [Method, string, unknown?]> = [
          ["GET", `${ADMIN_EVENTS}/${foreign.id}`],
          ["POST", `${ADMIN_EVENTS}/${foreign.id}/cancel`, {}],
          ["DELETE", `${ADMIN_EVENTS}/${foreign.id}`],
          ["GET", `${ADMIN_EVENTS}/abc`],
          ["DELETE", `${ADMIN_EVENTS}/0`]
        ]
        for (const headers of [a.headers, superHeaders]) {
          for (const [method, path, body] of routes) {
            const res = yield* call(method, path, headers, body)
            assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
          assert.deepStrictEqual(idsOf((yield* call("GET", ADMIN_EVENTS, headers)).body), [])
        }
        assert.include(yield* eventRow(foreign.id), { status: "active" })
      }))
  })

  describe("get, cancel and delete", () => {
    it.effect("GET /{id} shows any event with its counts; cancel is the organiser's cancel (409 the second time)", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const [going, waiting] = [yield* makeUser(tenant), yield* makeUser(tenant)]
        const event = yield* makeEvent(member, { maxAttendees: 1 })
        yield* insertRsvp(event.id, going, "going")
        yield* insertWaitlistEntry(event.id, waiting)
        const got = yield* call("GET", `${ADMIN_EVENTS}/${event.id}`, headers)
        assert.strictEqual(got.status, 200, got.text)
        includes(dataOf(got.body), {
          id: event.id,
          status: "active",
          counts: { going: 1, interested: 0, waitlist: 1 },
          my_rsvp: null,
          my_waitlist_position: null
        })
        const res = yield* rawRequest("POST", `${ADMIN_EVENTS}/${event.id}/cancel`, { headers })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), { status: "cancelled", cancel_reason: null })
        includes((yield* outboxOf(tenant, "EventCancelled"))[0], {
          event_id: event.id,
          user_id: member.id,
          cancelled_by: admin.id,
          reason: null,
          recipients: [going.id, waiting.id].sort((x, y) => x - y)
        })
        const again = yield* call("POST", `${ADMIN_EVENTS}/${event.id}/cancel`, headers, { reason: "Twice" })
        assert.strictEqual(again.status, 409, again.text)
        assert.strictEqual(codeOf(again.body), "EVENT_ALREADY_CANCELLED")
        // Still there for the admin, with its status.
        includes(dataOf((yield* call("GET", `${ADMIN_EVENTS}/${event.id}`, headers)).body), { status: "cancelled" })
      }))

    it.effect("DELETE /{id} is the organiser's delete: a template takes its future occurrences, detaches the past", () =>
      Effect.gen(function*() {
        const { admin, headers, member, tenant } = yield* community()
        const attendee = yield* makeUser(tenant)
        const template = yield* makeEvent(member, { startsInHours: 10 })
        const past = yield* makeEvent(member, { startsInHours: -10 })
        const future = yield* makeEvent(member, { startsInHours: 34 })
        yield* linkOccurrences(template, [past, future])
        yield* insertRsvp(future.id, attendee, "going")
        const res = yield* call("DELETE", `${ADMIN_EVENTS}/${template.id}`, headers)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, { data: { id: template.id, deleted: true }, meta: {} })
        assert.isUndefined(yield* eventRow(template.id))
        assert.isUndefined(yield* eventRow(future.id))
        assert.include(yield* eventRow(past.id), { parent_event_id: null })
        includes((yield* outboxOf(tenant, "EventDeleted"))[0], {
          event_id: template.id,
          user_id: member.id,
          deleted_by: admin.id,
          deleted_occurrence_ids: [future.id],
          detached_occurrence_ids: [past.id],
          recipients: [attendee.id]
        })
        const again = yield* call("DELETE", `${ADMIN_EVENTS}/${template.id}`, headers)
        assert.strictEqual(again.status, 404)
        assert.strictEqual((yield* call("GET", `${ADMIN_EVENTS}/${template.id}`, headers)).status, 404)
      }))
  })
})
