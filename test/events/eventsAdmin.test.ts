import { assert, describe, layer } from "@effect/vitest"
import type { AdminListEventsParams } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk } from "../fixtures/client.js"
import { community, makeActor } from "../fixtures/community.js"
import {
  asJson,
  eventRow,
  insertRsvp,
  insertWaitlistEntry,
  linkOccurrences,
  makeEvent,
  outboxOf,
  rawCall
} from "../fixtures/events.js"
import { makeTenant } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "../fixtures/users.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ADMIN_EVENTS = "/api/v2/admin/events"

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin events", (it) => {
  describe("list", () => {
    it.effect("every status, occurrences included, most recent start first; filters and offset meta", () =>
      Effect.gen(function*() {
        const { admin, member, tenant } = yield* community()
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

        const page = (urlParams: AdminListEventsParams) => admin.client.adminEvents.list({ urlParams }).pipe(expectOk)
        const all = yield* page({})
        assert.deepStrictEqual(all.data.map((e) => e.id), newestFirst)
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 6, total_pages: 1, has_more: false })
        const second = yield* page({ per_page: 4, page: 2 })
        assert.deepStrictEqual(second.data.map((e) => e.id), newestFirst.slice(4))
        assert.deepStrictEqual(second.meta, { current_page: 2, per_page: 4, total: 6, total_pages: 2, has_more: false })
        assert.deepStrictEqual((yield* page({ per_page: 4 })).meta.has_more, true)

        const ids = (urlParams: AdminListEventsParams) => Effect.map(page(urlParams), (p) => p.data.map((e) => e.id))
        assert.deepStrictEqual(yield* ids({ status: "cancelled" }), [later.id, pastB.id])
        assert.deepStrictEqual(yield* ids({ status: "active" }), [occurrence.id, template.id, soon.id, pastA.id])
        assert.deepStrictEqual(yield* ids({ when: "upcoming" }), [soon.id, later.id, template.id, occurrence.id])
        assert.deepStrictEqual(yield* ids({ when: "past" }), [pastB.id, pastA.id])
        assert.deepStrictEqual(yield* ids({ user_id: other.id }), [later.id, pastB.id])
        assert.deepStrictEqual(yield* ids({ search: "PICNIC", when: "upcoming" }), [
          soon.id,
          template.id,
          occurrence.id
        ])
        assert.deepStrictEqual(yield* ids({ search: "d_p" }), [pastA.id])
        assert.deepStrictEqual(yield* ids({ search: "50%" }), [pastA.id])
        assert.deepStrictEqual(yield* ids({ search: "old%walk" }), [])
        assert.deepStrictEqual(yield* ids({ status: "active", when: "past", user_id: member.id }), [pastA.id])
        const filtered = yield* page({ status: "cancelled", per_page: 1 })
        assert.deepStrictEqual(filtered.meta, {
          current_page: 1,
          per_page: 1,
          total: 2,
          total_pages: 2,
          has_more: true
        })
        const occurrenceCard = all.data.find((e) => e.id === occurrence.id)
        includes(asJson(occurrenceCard), { parent_event_id: template.id, status: "active" })
        includes(asJson(all.data.find((e) => e.id === template.id)), { is_recurring_template: true })

        // Raw: parameters the client would not encode.
        for (
          const [query, field] of [
            ["page=0", "page"],
            ["per_page=101", "per_page"],
            ["status=deleted", "status"],
            ["when=soon", "when"],
            ["user_id=x", "user_id"]
          ] as const
        ) {
          const res = yield* rawCall("GET", `${ADMIN_EVENTS}?${query}`, admin.headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
        const typed = yield* admin.client.adminEvents.list({ urlParams: { status: "cancelled" } })
        assert.deepStrictEqual(typed.data.map((e) => [e.id, e.status]), [[later.id, "cancelled"], [
          pastB.id,
          "cancelled"
        ]])
      }))
  })

  describe("roles and tenancy", () => {
    it.effect("members, brokers and coordinators get 403 on every admin route; anonymous callers 401", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const event = yield* makeEvent(yield* makeUser(tenant))
        const staff = [
          member,
          yield* makeActor(tenant, { role: "broker" }),
          yield* makeActor(tenant, { role: "coordinator" })
        ]
        const path = { id: event.id }
        const routes = (
          client: typeof member.client
        ): ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> => [
          ["GET", client.adminEvents.list({ urlParams: {} })],
          ["GET {id}", client.adminEvents.get({ path })],
          ["POST {id}/cancel", client.adminEvents.cancel({ path, payload: {} })],
          ["DELETE {id}", client.adminEvents.delete({ path })]
        ]
        for (const actor of staff) {
          for (const [route, call] of routes(actor.client)) {
            const failure = yield* call.pipe(expectError(403, "FORBIDDEN"))
            assert.strictEqual(failure.status, 403, route)
          }
        }
        for (const [route, call] of routes(visitor.client)) {
          const failure = yield* call.pipe(expectError(401, "AUTH_REQUIRED"))
          assert.strictEqual(failure.status, 401, route)
        }
        assert.include(yield* eventRow(event.id), { status: "active" })
      }))

    it.effect("a platform super-admin addressing a community administers its events", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const superAdmin = yield* makeSuperAdmin()
        const client = yield* apiClient(yield* authHeaders(superAdmin, tenant))
        const event = yield* makeEvent(member)
        const list = yield* client.adminEvents.list({ urlParams: {} }).pipe(expectOk)
        assert.deepStrictEqual(list.data.map((e) => e.id), [event.id])
        yield* client.adminEvents.cancel({ path: { id: event.id }, payload: { reason: "Policy" } }).pipe(expectOk)
        includes((yield* outboxOf(tenant, "EventCancelled"))[0], { cancelled_by: superAdmin.id, reason: "Policy" })
        yield* client.adminEvents.delete({ path: { id: event.id } }).pipe(expectOk)
        includes((yield* outboxOf(tenant, "EventDeleted"))[0], { deleted_by: superAdmin.id, event_id: event.id })
      }))

    it.effect("an event of another community is 404 on every {id} route, for its admin and a super-admin alike", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const foreign = yield* makeEvent(b.member)
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), a.tenant)
        const path = { id: foreign.id }
        for (const headers of [a.admin.headers, superHeaders]) {
          const client = yield* apiClient(headers)
          const routes: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
            ["GET {id}", client.adminEvents.get({ path })],
            ["POST {id}/cancel", client.adminEvents.cancel({ path, payload: {} })],
            ["DELETE {id}", client.adminEvents.delete({ path })]
          ]
          for (const [route, call] of routes) {
            const failure = yield* call.pipe(expectError(404, "NOT_FOUND"))
            assert.strictEqual(failure.status, 404, route)
          }
          // Raw: ids that are not record ids cannot be written by the client.
          for (const [method, path] of [["GET", `${ADMIN_EVENTS}/abc`], ["DELETE", `${ADMIN_EVENTS}/0`]] as const) {
            const res = yield* rawCall(method, path, headers)
            assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
          assert.deepStrictEqual((yield* client.adminEvents.list({ urlParams: {} })).data, [])
        }
        assert.include(yield* eventRow(foreign.id), { status: "active" })
      }))
  })

  describe("get, cancel and delete", () => {
    it.effect("GET /{id} shows any event with its counts; cancel is the organiser's cancel (409 the second time)", () =>
      Effect.gen(function*() {
        const { admin, member, members: [going, waiting], tenant } = yield* community({ members: 2 })
        const event = yield* makeEvent(member, { maxAttendees: 1 })
        yield* insertRsvp(event.id, going!, "going")
        yield* insertWaitlistEntry(event.id, waiting!)
        const path = { id: event.id }
        const got = yield* admin.client.adminEvents.get({ path }).pipe(expectOk)
        includes(asJson(got.data), {
          id: event.id,
          status: "active",
          counts: { going: 1, interested: 0, waitlist: 1 },
          my_rsvp: null,
          my_waitlist_position: null
        })
        // Raw: a cancel without any body.
        const res = yield* rawRequest("POST", `${ADMIN_EVENTS}/${event.id}/cancel`, { headers: admin.headers })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), { status: "cancelled", cancel_reason: null })
        includes((yield* outboxOf(tenant, "EventCancelled"))[0], {
          event_id: event.id,
          user_id: member.id,
          cancelled_by: admin.id,
          reason: null,
          recipients: [going!.id, waiting!.id].sort((x, y) => x - y)
        })
        yield* admin.client.adminEvents.cancel({ path, payload: { reason: "Twice" } }).pipe(
          expectError(409, "EVENT_ALREADY_CANCELLED")
        )
        // Still there for the admin, with its status.
        assert.strictEqual((yield* admin.client.adminEvents.get({ path }).pipe(expectOk)).data.status, "cancelled")
      }))

    it.effect("DELETE /{id} is the organiser's delete: a template takes its future occurrences, detaches the past", () =>
      Effect.gen(function*() {
        const { admin, member, members: [attendee], tenant } = yield* community({ members: 1 })
        const template = yield* makeEvent(member, { startsInHours: 10 })
        const past = yield* makeEvent(member, { startsInHours: -10 })
        const future = yield* makeEvent(member, { startsInHours: 34 })
        yield* linkOccurrences(template, [past, future])
        yield* insertRsvp(future.id, attendee!, "going")
        const path = { id: template.id }
        const res = yield* admin.client.adminEvents.delete({ path }).pipe(expectOk)
        assert.deepStrictEqual(res, { data: { id: template.id, deleted: true }, meta: {} })
        assert.isUndefined(yield* eventRow(template.id))
        assert.isUndefined(yield* eventRow(future.id))
        assert.include(yield* eventRow(past.id), { parent_event_id: null })
        includes((yield* outboxOf(tenant, "EventDeleted"))[0], {
          event_id: template.id,
          user_id: member.id,
          deleted_by: admin.id,
          deleted_occurrence_ids: [future.id],
          detached_occurrence_ids: [past.id],
          recipients: [attendee!.id]
        })
        yield* admin.client.adminEvents.delete({ path }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.client.adminEvents.get({ path }).pipe(expectError(404, "NOT_FOUND"))
      }))
  })
})
