import { assert, describe, layer } from "@effect/vitest"
import type { EventId } from "@timebank/domain"
import { DateTime as EffectDateTime, Effect } from "effect"
import { fieldsOf } from "../../fixtures/bodies.js"
import { type ApiClient, expectError, expectOk, ownAddressClient } from "../../fixtures/client.js"
import { asJson, insertRsvp, makeEvent, outboxOf, rawCall } from "../../fixtures/events.js"
import { TestApp } from "../../fixtures/TestApp.js"
import {
  base,
  berlin,
  berlinCommunity,
  type Created,
  createSeries,
  nextMonday,
  rows,
  ruleOf,
  seriesRows,
  shiftTo
} from "./recurringSeries.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"

/** A weekly series of `count` dates with 10 places each. */
const weekly = (client: ApiClient, count = 4) =>
  createSeries(client, {
    ...base(),
    recurrence_frequency: "weekly",
    recurrence_ends_after_count: count,
    max_attendees: 10
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "recurring events: edits and cascades",
  (it) => {
    describe("PUT /events/{id}/recurring", () => {
      it.effect("scope single on an occurrence: detached, only it changes (times included)", () =>
        Effect.gen(function*() {
          const { member, tenant } = yield* berlinCommunity()
          const client = yield* ownAddressClient(member)
          const series = yield* weekly(client)
          const target = series.series_occurrences[1]!
          const moved = berlin(target.start_time).plus({ hours: 3 })
          const res = yield* client.recurringEvents.update({
            path: { id: target.id },
            payload: {
              scope: "single",
              title: "Special edition",
              start_time: EffectDateTime.unsafeMake(moved.toMillis()),
              end_time: EffectDateTime.unsafeMake(moved.plus({ hours: 1 }).toMillis())
            }
          }).pipe(expectOk)
          const view = asJson(res.data) as unknown as Created
          assert.deepInclude(view, { id: target.id, title: "Special edition", parent_event_id: null })
          assert.strictEqual(new Date(view.start_time).getTime(), moved.toMillis())
          const rest = yield* seriesRows(series.id)
          assert.deepStrictEqual(rest.map((r) => Number(r.id)), [0, 2, 3].map((i) => series.series_occurrences[i]!.id))
          assert.isTrue(rest.every((r) => r.title === "Repair café"))
          const updates = yield* outboxOf(tenant, "CommunityEventUpdated")
          assert.deepInclude(updates.at(-1), {
            event_id: target.id,
            scope: "single",
            event_ids: [target.id],
            detached_from: series.id
          })
          // Detached even when nothing else changes.
          const plain = series.series_occurrences[2]!
          const detachOnly = yield* client.recurringEvents.update({
            path: { id: plain.id },
            payload: { scope: "single" }
          })
            .pipe(expectOk)
          assert.isNull(detachOnly.data.parent_event_id)
        }))

      it.effect("scope all (from an occurrence): template and future, active occurrences change; times never", () =>
        Effect.gen(function*() {
          const { member, other, tenant } = yield* berlinCommunity()
          const client = yield* ownAddressClient(member)
          const series = yield* weekly(client, 5)
          const [past, cancelled, addressed] = [
            series.series_occurrences[0]!,
            series.series_occurrences[1]!,
            series.series_occurrences[2]!
          ]
          yield* shiftTo(past.id, new Date(Date.now() - 3 * 3_600_000))
          yield* rows((sql) => sql`UPDATE events SET status = 'cancelled' WHERE id = ${cancelled.id}`)
          yield* insertRsvp(addressed.id, other, "going")
          const res = yield* client.recurringEvents.update({
            path: { id: addressed.id },
            payload: { scope: "all", title: "Repair café (new room)", location: "Library", max_attendees: 20 }
          }).pipe(expectOk)
          const view = asJson(res.data)
          assert.deepInclude(view, {
            id: addressed.id,
            title: "Repair café (new room)",
            location: "Library",
            max_attendees: 20
          })
          assert.strictEqual(view["start_time"], addressed.start_time)
          const after = yield* seriesRows(series.id)
          const byId = new Map(after.map((r) => [Number(r.id), r]))
          assert.strictEqual(byId.get(past.id)!.title, "Repair café")
          assert.strictEqual(byId.get(cancelled.id)!.title, "Repair café")
          for (const o of series.series_occurrences.slice(2)) {
            assert.deepInclude(byId.get(o.id), {
              title: "Repair café (new room)",
              location: "Library",
              max_attendees: 20
            })
            assert.strictEqual(byId.get(o.id)!.start_time.toISOString(), new Date(o.start_time).toISOString())
          }
          const template = yield* member.client.events.get({ path: { id: series.id } }).pipe(expectOk)
          includes(asJson(template.data), { title: "Repair café (new room)", start_time: series.start_time })
          const [payload] = (yield* outboxOf(tenant, "CommunityEventUpdated")).slice(-1)
          assert.deepInclude(payload, { event_id: series.id, user_id: member.id, scope: "all", updated_by: member.id })
          assert.sameMembers(payload!["event_ids"] as Array<number>, [
            series.id,
            ...series.series_occurrences.slice(2).map((o) => o.id)
          ])
          assert.deepStrictEqual(payload!["changed"], ["title", "location"])
        }))

      it.effect("scope all from the template; start_time/end_time with scope all → 422", () =>
        Effect.gen(function*() {
          const { admin, member } = yield* berlinCommunity()
          const client = yield* ownAddressClient(member)
          const series = yield* weekly(client, 3)
          const path = { id: series.id }
          const refused = yield* client.recurringEvents.update({
            path,
            payload: {
              scope: "all",
              title: "x",
              start_time: EffectDateTime.unsafeMake(nextMonday(12)),
              end_time: EffectDateTime.unsafeMake(nextMonday(13))
            }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.sameMembers([...refused.fields], ["start_time", "end_time"])
          // A community admin may edit the series too.
          yield* admin.client.recurringEvents.update({ path, payload: { scope: "all", description: "New text" } }).pipe(
            expectOk
          )
          assert.isTrue((yield* seriesRows(series.id)).length === 3)
          const descriptions = yield* rows((sql) =>
            sql<
              { description: string }
            >`SELECT description FROM events WHERE id = ${series.id} OR parent_event_id = ${series.id}`
          )
          assert.isTrue(descriptions.every((r) => r.description === "New text"))
        }))

      it.effect("422 scope: single on a template, any scope on an event outside a series; 409 on a cancelled series", () =>
        Effect.gen(function*() {
          const { member } = yield* berlinCommunity()
          const client = yield* ownAddressClient(member)
          const series = yield* weekly(client, 3)
          const path = { id: series.id }
          const single = yield* client.recurringEvents.update({ path, payload: { scope: "single", title: "x" } }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.deepStrictEqual(single.fields, ["scope"])
          const plain = yield* makeEvent(member)
          const notSeries = yield* client.recurringEvents.update({
            path: { id: plain.id },
            payload: { scope: "all", title: "x" }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(notSeries.fields, ["scope"])
          // Raw: a body without the scope the client requires.
          const noScope = yield* rawCall("PUT", `${EVENTS}/${series.id}/recurring`, member.headers, { title: "x" })
          assert.strictEqual(noScope.status, 422)
          assert.deepStrictEqual(fieldsOf(noScope.body), ["scope"])
          yield* client.events.cancel({ path, payload: {} }).pipe(expectOk)
          yield* client.recurringEvents.update({ path, payload: { scope: "all", title: "x" } }).pipe(
            expectError(409, "EVENT_CANCELLED")
          )
        }))

      it.effect("403 for another member, 404 across tenants and for unknown ids", () =>
        Effect.gen(function*() {
          const { member, other } = yield* berlinCommunity()
          const series = yield* weekly(yield* ownAddressClient(member), 2)
          const payload = { scope: "all", title: "x" } as const
          yield* other.client.recurringEvents.update({ path: { id: series.series_occurrences[0]!.id }, payload }).pipe(
            expectError(403, "FORBIDDEN")
          )
          const elsewhere = yield* berlinCommunity()
          for (const id of [series.id, series.series_occurrences[0]!.id]) {
            yield* elsewhere.admin.client.recurringEvents.update({ path: { id }, payload }).pipe(
              expectError(404, "NOT_FOUND")
            )
          }
          yield* member.client.recurringEvents.update({ path: { id: 999999999 as EventId }, payload: { scope: "all" } })
            .pipe(expectError(404, "NOT_FOUND"))
          assert.isTrue((yield* seriesRows(series.id)).every((r) => r.title === "Repair café"))
        }))
    })

    describe("cascades over real series", () => {
      it.effect("cancelling the template cancels its future occurrences, not the past ones", () =>
        Effect.gen(function*() {
          const { member, other, tenant } = yield* berlinCommunity()
          const client = yield* ownAddressClient(member)
          const series = yield* createSeries(client, {
            ...base(),
            recurrence_frequency: "daily",
            recurrence_ends_after_count: 4
          })
          const past = series.series_occurrences[0]!
          yield* shiftTo(past.id, new Date(Date.now() - 5 * 3_600_000))
          yield* insertRsvp(series.series_occurrences[2]!.id, other, "going")
          yield* client.events.cancel({ path: { id: series.id }, payload: { reason: "Closed" } }).pipe(expectOk)
          const after = yield* seriesRows(series.id)
          assert.deepStrictEqual(after.map((r) => r.status), ["active", "cancelled", "cancelled", "cancelled"])
          const [payload] = yield* outboxOf(tenant, "EventCancelled")
          assert.sameMembers(
            payload!["cancelled_occurrence_ids"] as Array<number>,
            series.series_occurrences.slice(1).map((o) => o.id)
          )
          assert.deepStrictEqual(payload!["recipients"], [other.id])
        }))

      it.effect("deleting the template deletes the rule and future occurrences and detaches past ones", () =>
        Effect.gen(function*() {
          const { admin, member } = yield* berlinCommunity()
          const series = yield* createSeries(yield* ownAddressClient(member), {
            ...base(),
            recurrence_frequency: "daily",
            recurrence_ends_after_count: 4
          })
          const past = series.series_occurrences[0]!
          yield* shiftTo(past.id, new Date(Date.now() - 5 * 3_600_000))
          yield* (yield* ownAddressClient(admin)).events.delete({ path: { id: series.id } }).pipe(expectOk)
          assert.isUndefined(yield* ruleOf(series.id))
          const left = yield* rows((sql) =>
            sql<{ id: string; parent_event_id: string | null }>`
            SELECT id, parent_event_id FROM events WHERE id IN ${sql.in(series.series_occurrences.map((o) => o.id))}`
          )
          assert.deepStrictEqual(left.map((r) => [Number(r.id), r.parent_event_id]), [[past.id, null]])
        }))
    })
  }
)
