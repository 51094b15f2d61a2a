import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf } from "../fixtures/bodies.js"
import { expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import {
  asJson,
  countWhere,
  eventRow,
  hoursFromNow,
  insertReminder,
  insertRsvp,
  insertWaitlistEntry,
  linkOccurrences,
  makeEvent,
  makePoll,
  outboxOf,
  rawCall,
  type TestEvent
} from "../fixtures/events.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"

const sorted = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events: cancel and delete", (it) => {
  describe("cancel", () => {
    it.effect("the organiser cancels with a reason; EventCancelled names going/interested/invited/waiting once each", () =>
      Effect.gen(function*() {
        const { member, members, tenant, visitor } = yield* community({ members: 9 })
        const [going, interested, invited, notGoing, declined, attended, both, w1, w2] = members
        const event = yield* makeEvent(member, { maxAttendees: 3 })
        yield* insertRsvp(event.id, member, "going")
        yield* insertRsvp(event.id, going!, "going")
        yield* insertRsvp(event.id, interested!, "interested")
        yield* insertRsvp(event.id, invited!, "invited")
        yield* insertRsvp(event.id, notGoing!, "not_going")
        yield* insertRsvp(event.id, declined!, "declined")
        yield* insertRsvp(event.id, attended!, "attended")
        yield* insertRsvp(event.id, both!, "interested")
        yield* insertWaitlistEntry(event.id, w1!)
        yield* insertWaitlistEntry(event.id, both!)
        yield* insertWaitlistEntry(event.id, w2!)

        // Raw: the client sends only trimmed reasons.
        const res = yield* rawCall("POST", `${EVENTS}/${event.id}/cancel`, member.headers, {
          reason: "  Storm warning "
        })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), { id: event.id, status: "cancelled", cancel_reason: "Storm warning" })
        const [cancelled] = yield* outboxOf(tenant, "EventCancelled")
        includes(cancelled, {
          event_id: event.id,
          user_id: member.id,
          reason: "Storm warning",
          cancelled_by: member.id,
          cancelled_occurrence_ids: [],
          recipients: sorted([going!.id, interested!.id, invited!.id, both!.id, w1!.id, w2!.id])
        })
        includes(cancelled!["event"], { id: event.id, title: event.title, status: "cancelled" })
        assert.include(yield* eventRow(event.id), { status: "cancelled", cancel_reason: "Storm warning" })
        assert.isNotNull((yield* eventRow(event.id))!["cancelled_at"])

        yield* member.client.events.cancel({ path: { id: event.id }, payload: {} }).pipe(
          expectError(409, "EVENT_ALREADY_CANCELLED")
        )
        assert.strictEqual((yield* outboxOf(tenant, "EventCancelled")).length, 1)
        // Still readable, no longer listed; the answers stay for the record.
        const got = yield* visitor.client.events.get({ path: { id: event.id } }).pipe(expectOk)
        assert.strictEqual(got.data.status, "cancelled")
        assert.deepStrictEqual((yield* visitor.client.events.list({ urlParams: {} })).data, [])
        assert.strictEqual(yield* countWhere("event_rsvps", event.id), 8)
      }))

    it.effect("the body is optional: no body, {} and null all cancel without a reason; the typed client too", () =>
      Effect.gen(function*() {
        const { member } = yield* community()
        // Raw: no body and a JSON null are what the client never sends.
        const bodies = [undefined, "{}", "null", JSON.stringify({ reason: null })]
        for (const body of bodies) {
          const event = yield* makeEvent(member)
          const res = yield* rawRequest("POST", `${EVENTS}/${event.id}/cancel`, {
            headers: member.headers,
            ...(body === undefined ? {} : { body })
          })
          assert.strictEqual(res.status, 200, `${body}: ${res.text}`)
          includes(dataOf(res.body), { status: "cancelled", cancel_reason: null })
        }
        const event = yield* makeEvent(member)
        const cancelled = yield* member.client.events.cancel({ path: { id: event.id }, payload: {} })
        assert.strictEqual(cancelled.data.status, "cancelled")
        const bad = yield* rawCall("POST", `${EVENTS}/${(yield* makeEvent(member)).id}/cancel`, member.headers, {
          reason: 42
        })
        assert.strictEqual(bad.status, 422, bad.text)
      }))

    it.effect("a community admin may cancel; other members get 403 and the event stays on", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community()
        const event = yield* makeEvent(member)
        const path = { id: event.id }
        yield* other.client.events.cancel({ path, payload: {} }).pipe(expectError(403, "FORBIDDEN"))
        assert.include(yield* eventRow(event.id), { status: "active" })
        yield* admin.client.events.cancel({ path, payload: { reason: "Venue closed" } }).pipe(expectOk)
        const [cancelled] = yield* outboxOf(tenant, "EventCancelled")
        includes(cancelled, { event_id: event.id, user_id: member.id, cancelled_by: admin.id, reason: "Venue closed" })
      }))

    it.effect("a recurring template cancels its future occurrences only; recipients span them, once each", () =>
      Effect.gen(function*() {
        const { member, members: [a, b, c, d, w], tenant } = yield* community({ members: 5 })
        const template = yield* makeEvent(member, { startsInHours: 24 })
        const pastOne = yield* makeEvent(member, { startsInHours: -48 })
        const nextOne = yield* makeEvent(member, { startsInHours: 72 })
        const alreadyOff = yield* makeEvent(member, { startsInHours: 96, status: "cancelled" })
        const lastOne = yield* makeEvent(member, { startsInHours: 120 })
        const unrelated = yield* makeEvent(member, { startsInHours: 100 })
        yield* linkOccurrences(template, [pastOne, nextOne, alreadyOff, lastOne])
        yield* insertRsvp(template.id, a!, "going")
        yield* insertRsvp(pastOne.id, b!, "going")
        yield* insertRsvp(nextOne.id, c!, "interested")
        yield* insertRsvp(alreadyOff.id, d!, "going")
        yield* insertRsvp(lastOne.id, a!, "going")
        yield* insertWaitlistEntry(lastOne.id, w!)
        yield* insertRsvp(unrelated.id, d!, "going")

        const res = yield* member.client.events.cancel({
          path: { id: template.id },
          payload: { reason: "Season over" }
        }).pipe(expectOk)
        includes(asJson(res.data), { status: "cancelled", is_recurring_template: true })
        const statusOf = (e: TestEvent) => Effect.map(eventRow(e.id), (row) => [row!["status"], row!["cancel_reason"]])
        assert.deepStrictEqual(yield* statusOf(pastOne), ["active", null])
        assert.deepStrictEqual(yield* statusOf(nextOne), ["cancelled", "Season over"])
        assert.deepStrictEqual(yield* statusOf(alreadyOff), ["cancelled", null])
        assert.deepStrictEqual(yield* statusOf(lastOne), ["cancelled", "Season over"])
        assert.deepStrictEqual(yield* statusOf(unrelated), ["active", null])
        const [cancelled] = yield* outboxOf(tenant, "EventCancelled")
        assert.sameMembers(cancelled!["cancelled_occurrence_ids"] as Array<number>, [nextOne.id, lastOne.id])
        assert.deepStrictEqual(cancelled!["recipients"], sorted([a!.id, c!.id, w!.id]))
      }))
  })

  describe("delete", () => {
    it.effect("the organiser deletes: RSVPs, waitlist, reminders and poll links go; EventDeleted names who expected it", () =>
      Effect.gen(function*() {
        const { member, members: [going, interested, waiting, declined], tenant, visitor } = yield* community({
          members: 4
        })
        const poll = yield* makePoll(member)
        const client = yield* ownAddressClient(member)
        const created = yield* client.events.create({
          payload: { title: "Potluck", description: "Bring a dish", start_time: hoursFromNow(6), poll_ids: [poll.id] }
        }).pipe(expectOk)
        const id = created.data.id
        yield* insertRsvp(id, going!, "going")
        yield* insertRsvp(id, interested!, "interested")
        yield* insertRsvp(id, declined!, "declined")
        yield* insertRsvp(id, member, "going")
        yield* insertWaitlistEntry(id, waiting!)
        yield* insertReminder(id, going!)

        const res = yield* client.events.delete({ path: { id } }).pipe(expectOk)
        assert.deepStrictEqual(res, { data: { id, deleted: true }, meta: {} })
        assert.isUndefined(yield* eventRow(id))
        for (const table of ["event_rsvps", "event_waitlist", "event_reminders", "event_polls"]) {
          assert.strictEqual(yield* countWhere(table, id), 0, table)
        }
        const [deleted] = yield* outboxOf(tenant, "EventDeleted")
        includes(deleted, {
          event_id: id,
          user_id: member.id,
          deleted_by: member.id,
          deleted_occurrence_ids: [],
          detached_occurrence_ids: [],
          recipients: sorted([going!.id, interested!.id, waiting!.id])
        })
        includes(deleted!["event"], { id, title: "Potluck" })
        // The poll itself stays: it is the member's.
        const pollRes = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM polls WHERE id = ${poll.id}`
        )
        assert.strictEqual(pollRes[0]!.n, 1)

        yield* visitor.client.events.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* client.events.delete({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("nobody is told about a past or already cancelled event going away; others get 403", () =>
      Effect.gen(function*() {
        const { admin, member, members: [x], other, tenant } = yield* community({ members: 1 })
        const past = yield* makeEvent(member, { startsInHours: -30 })
        const cancelled = yield* makeEvent(member, { status: "cancelled" })
        for (const event of [past, cancelled]) yield* insertRsvp(event.id, x!, "going")
        yield* (yield* ownAddressClient(other)).events.delete({ path: { id: past.id } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.isDefined(yield* eventRow(past.id))
        const adminClient = yield* ownAddressClient(admin)
        for (const event of [past, cancelled]) {
          yield* adminClient.events.delete({ path: { id: event.id } }).pipe(expectOk)
        }
        const payloads = yield* outboxOf(tenant, "EventDeleted")
        assert.deepStrictEqual(payloads.map((p) => [p["event_id"], p["recipients"]]), [[past.id, []], [
          cancelled.id,
          []
        ]])
      }))

    it.effect("a recurring template deletes its future occurrences and detaches the past ones", () =>
      Effect.gen(function*() {
        const { member, members: [a, b, c], tenant } = yield* community({ members: 3 })
        const template = yield* makeEvent(member, { startsInHours: 24 })
        const past1 = yield* makeEvent(member, { startsInHours: -72 })
        const past2 = yield* makeEvent(member, { startsInHours: -24 })
        const future1 = yield* makeEvent(member, { startsInHours: 48 })
        const future2 = yield* makeEvent(member, { startsInHours: 72, status: "cancelled" })
        yield* linkOccurrences(template, [past1, past2, future1, future2])
        yield* insertRsvp(template.id, a!, "going")
        yield* insertRsvp(past1.id, b!, "going")
        yield* insertRsvp(future1.id, c!, "interested")
        yield* insertRsvp(future2.id, b!, "going")

        yield* (yield* ownAddressClient(member)).events.delete({ path: { id: template.id } }).pipe(expectOk)
        for (const gone of [template, future1, future2]) assert.isUndefined(yield* eventRow(gone.id))
        for (const kept of [past1, past2]) {
          assert.include(yield* eventRow(kept.id), { parent_event_id: null, status: "active" })
        }
        assert.strictEqual(yield* countWhere("event_rsvps", past1.id), 1)
        const [deleted] = yield* outboxOf(tenant, "EventDeleted")
        assert.sameMembers(deleted!["deleted_occurrence_ids"] as Array<number>, [future1.id, future2.id])
        assert.sameMembers(deleted!["detached_occurrence_ids"] as Array<number>, [past1.id, past2.id])
        assert.deepStrictEqual(deleted!["recipients"], sorted([a!.id, c!.id]))
      }))
  })
})
