import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { EventSeriesId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { asJson, createEventSeries, makeEvent, outboxOf, rawCall, type TestEvent } from "../../fixtures/events.js"
import { makeTenant } from "../../fixtures/tenants.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "../../fixtures/users.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"

const seriesIdOf = (event: TestEvent) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ series_id: string | null }>`SELECT series_id FROM events WHERE id = ${event.id}`.pipe(
        Effect.map((rows) => (rows[0]!.series_id === null ? null : Number(rows[0]!.series_id)))
      )
  )

/** `POST /events/{id}/series` through the typed client. */
const link = (client: ApiClient, event: Pick<TestEvent, "id">, seriesId: number | null) =>
  client.eventSeries.link({ path: { id: event.id }, payload: { series_id: seriesId } })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("event series: standalone series", (it) => {
  describe("POST /events/series", () => {
    it.effect("a member names a series (201 with its shape); EventSeriesCreated; bad input 422 per field", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        // Raw: an untrimmed title, which the client does not send, and the keys on the wire.
        const res = yield* rawCall("POST", `${EVENTS}/series`, member.headers, {
          title: "  Tuesday walks ",
          description: "Different routes"
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<Record<string, unknown>>(res.body)
        assert.hasAllKeys(created, ["id", "title", "description", "user_id", "created_at"])
        includes(created, { title: "Tuesday walks", description: "Different routes", user_id: member.id })
        const [row] = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<Record<string, unknown>>`SELECT tenant_id, user_id, title FROM event_series WHERE id = ${created["id"]}`
        )
        assert.deepStrictEqual(row, {
          tenant_id: String(tenant.id),
          user_id: String(member.id),
          title: "Tuesday walks"
        })
        assert.deepStrictEqual(yield* outboxOf(tenant, "EventSeriesCreated"), [
          { series_id: created["id"], user_id: member.id, title: "Tuesday walks" }
        ])
        const bare = yield* member.client.eventSeries.create({ payload: { title: "No description" } }).pipe(expectOk)
        assert.strictEqual(bare.data.description, null)

        // Raw: bodies the client's schemas would refuse to send.
        for (
          const [body, fields] of [
            [{}, ["title"]],
            [{ title: "   " }, ["title"]],
            [{ title: "x".repeat(256) }, ["title"]],
            [{ title: 5, description: "x".repeat(20_001) }, ["title", "description"]]
          ] as const
        ) {
          const bad = yield* rawCall("POST", `${EVENTS}/series`, member.headers, body)
          assert.strictEqual(bad.status, 422, bad.text)
          assert.strictEqual(codeOf(bad.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(bad.body), [...fields])
        }
        assert.strictEqual((yield* outboxOf(tenant, "EventSeriesCreated")).length, 2)
      }))

    it.effect("needs a token (401); a visiting super-admin is not a member here (403); feature off is 403", () =>
      Effect.gen(function*() {
        const { tenant, visitor } = yield* community()
        yield* visitor.client.eventSeries.create({ payload: { title: "x" } }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.eventSeries.create({ payload: { title: "x" } }).pipe(expectError(403, "FORBIDDEN"))

        const off = yield* community({ features: { events: false } })
        const event = yield* makeEvent(off.member)
        yield* off.member.client.eventSeries.create({ payload: { title: "x" } }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
        yield* link(off.member.client, event, null).pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })

  describe("POST /events/{id}/series", () => {
    it.effect("the organiser links to their series and unlinks with null; CommunityEventUpdated; no-op is silent", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const seriesId = yield* createEventSeries(member.client)
        const event = yield* makeEvent(member)
        const linked = yield* link(member.client, event, seriesId).pipe(expectOk)
        includes(asJson(linked.data), { id: event.id, series_id: seriesId, is_series: false })
        assert.strictEqual(yield* seriesIdOf(event), seriesId)
        const [updated] = yield* outboxOf(tenant, "CommunityEventUpdated")
        includes(updated, { event_id: event.id, fields: ["series_id"], changed: [], updated_by: member.id })
        includes((updated as { event: Record<string, unknown> }).event, { series_id: seriesId })

        yield* link(member.client, event, seriesId).pipe(expectOk)
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 1)

        const unlinked = yield* link(member.client, event, null).pipe(expectOk)
        assert.strictEqual(unlinked.data.series_id, null)
        assert.isNull(yield* seriesIdOf(event))
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 2)
        // The detail reads the link too.
        const detail = yield* member.client.events.get({ path: { id: event.id } }).pipe(expectOk)
        assert.strictEqual(detail.data.series_id, null)
      }))

    it.effect("an admin links any event to any series here; others' series and others' events are 403", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community()
        const membersSeries = yield* createEventSeries(member.client)
        const othersSeries = yield* createEventSeries(other.client)
        const event = yield* makeEvent(member)
        const othersEvent = yield* makeEvent(other)

        yield* link(member.client, event, othersSeries).pipe(expectError(403, "FORBIDDEN"))
        yield* link(member.client, othersEvent, membersSeries).pipe(expectError(403, "FORBIDDEN"))
        yield* link(member.client, othersEvent, null).pipe(expectError(403, "FORBIDDEN"))
        assert.isNull(yield* seriesIdOf(event))
        assert.isNull(yield* seriesIdOf(othersEvent))

        yield* link(admin.client, event, othersSeries).pipe(expectOk)
        assert.strictEqual(yield* seriesIdOf(event), othersSeries)
      }))

    it.effect("a series of another community or none is 422 on series_id; bad bodies 422; cancelled 409", () =>
      Effect.gen(function*() {
        const { member } = yield* community()
        const elsewhere = yield* community()
        const foreignSeries = yield* createEventSeries(elsewhere.member.client)
        const event = yield* makeEvent(member)
        for (const seriesId of [foreignSeries, EventSeriesId.make(99_999_999)]) {
          const failure = yield* link(member.client, event, seriesId).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["series_id"])
        }
        // Raw: series ids the client's schema would refuse to send.
        for (const body of [{}, { series_id: "abc" }, { series_id: 0 }, { series_id: 1.5 }]) {
          const res = yield* rawCall("POST", `${EVENTS}/${event.id}/series`, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), ["series_id"])
        }
        assert.isNull(yield* seriesIdOf(event))

        const mine = yield* createEventSeries(member.client)
        const cancelled = yield* makeEvent(member, { status: "cancelled" })
        yield* link(member.client, cancelled, mine).pipe(expectError(409, "EVENT_CANCELLED"))
        assert.isNull(yield* seriesIdOf(cancelled))
      }))

    it.effect("another community's event is 404 for its members and admins; unknown and bad ids 404; 401 without token", () =>
      Effect.gen(function*() {
        const { admin, member, visitor } = yield* community()
        const mine = yield* createEventSeries(member.client)
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        for (const actor of [member, admin]) {
          for (const id of [foreign.id, 99999999 as TestEvent["id"]]) {
            yield* link(actor.client, { id }, mine).pipe(expectError(404, "NOT_FOUND"))
          }
          // Raw: ids that are not record ids cannot be written by the client.
          for (const id of ["abc", "0"]) {
            const res = yield* rawCall("POST", `${EVENTS}/${id}/series`, actor.headers, { series_id: mine })
            assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
        }
        assert.isNull(yield* seriesIdOf(foreign))
        const event = yield* makeEvent(member)
        yield* link(visitor.client, event, mine).pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })
})
