import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { codeOf, fieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import {
  asJson,
  countWhere,
  eventRow,
  hoursFromNow,
  insertRsvp,
  insertWaitlistEntry,
  makeEvent,
  makePoll,
  outboxOf,
  rawCall,
  rsvpOf
} from "../fixtures/events.js"
import { makeCategory } from "../fixtures/listings.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events: update", (it) => {
  describe("update", () => {
    it.effect("the organiser edits: fields change, null clears, poll_ids replaces; CommunityEventUpdated says what", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Repair", type: "event" })
        const [first, second] = [yield* makePoll(member), yield* makePoll(member)]
        const client = yield* ownAddressClient(member)
        const created = yield* client.events.create({
          payload: {
            title: "Repair cafe",
            description: "Bring broken things",
            start_time: hoursFromNow(24),
            end_time: hoursFromNow(26),
            location: "Hall",
            max_attendees: 10,
            poll_ids: [first.id]
          }
        }).pipe(expectOk)
        const id = created.data.id
        const newStart = hoursFromNow(30)
        const res = yield* client.events.update({
          path: { id },
          payload: {
            title: "Repair café",
            description: "Bring broken things",
            location: null,
            start_time: newStart,
            end_time: null,
            category_id: category.id,
            max_attendees: null,
            poll_ids: [second.id, first.id]
          }
        }).pipe(expectOk)
        includes(asJson(res.data), {
          id,
          title: "Repair café",
          location: null,
          start_time: DateTime.formatIso(newStart),
          end_time: null,
          category_id: category.id,
          max_attendees: null,
          status: "active"
        })
        assert.sameMembers([...res.data.poll_ids], [first.id, second.id])
        const [updated] = yield* outboxOf(tenant, "CommunityEventUpdated")
        includes(updated, {
          event_id: id,
          user_id: member.id,
          updated_by: member.id,
          changed: ["title", "start_time", "end_time", "location"],
          fields: ["title", "start_time", "end_time", "location", "category_id", "max_attendees", "poll_ids"]
        })
        includes(updated!["event"], { title: "Repair café", location: null, end_time: null })

        // Only what really changes counts: the same values (or {}) record nothing.
        for (const payload of [{}, { title: "Repair café", location: null, poll_ids: [first.id, second.id] }]) {
          yield* client.events.update({ path: { id }, payload }).pipe(expectOk)
        }
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 1)
        const description = yield* client.events.update({
          path: { id },
          payload: { description: "New text", poll_ids: [] }
        }).pipe(expectOk)
        assert.deepStrictEqual(description.data.poll_ids, [])
        includes((yield* outboxOf(tenant, "CommunityEventUpdated"))[1], {
          changed: [],
          fields: ["description", "poll_ids"]
        })
        assert.strictEqual(yield* countWhere("event_polls", id), 0)
      }))

    it.effect("times: a new start must be in the future, the end after the (merged) start; bad input is 422", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const client = member.client
        const running = yield* makeEvent(member, { startsInHours: -1, hours: 3 })
        // A running event keeps its past start: other edits go through.
        yield* client.events.update({ path: { id: running.id }, payload: { location: "Garden" } }).pipe(expectOk)
        const keepStart = yield* eventRow(running.id)
        yield* client.events.update({
          path: { id: running.id },
          payload: { start_time: DateTime.unsafeMake(keepStart!["start_time"] as Date) }
        }).pipe(expectOk)

        const event = yield* makeEvent(member, { startsInHours: 10, hours: 2 })
        const cases = [
          [{ start_time: hoursFromNow(-5) }, ["start_time"]],
          [{ start_time: hoursFromNow(13) }, ["start_time"]],
          [{ end_time: hoursFromNow(9) }, ["end_time"]],
          [{ start_time: hoursFromNow(20), end_time: hoursFromNow(19) }, ["end_time"]],
          [{ category_id: (yield* makeCategory(tenant)).id }, ["category_id"]],
          [{ category_id: 99_999_999, start_time: hoursFromNow(-1) }, ["category_id", "start_time"]]
        ] as const
        for (const [payload, fields] of cases) {
          const failure = yield* client.events.update({ path: { id: event.id }, payload }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.sameMembers([...failure.fields], [...fields], JSON.stringify(payload))
        }
        // Raw: an empty title and a negative capacity are refused by the client's own schemas.
        const invalid = yield* rawCall("PUT", `${EVENTS}/${event.id}`, member.headers, { title: "", max_attendees: -1 })
        assert.strictEqual(invalid.status, 422, invalid.text)
        assert.strictEqual(codeOf(invalid.body), "VALIDATION_ERROR")
        assert.sameMembers(fieldsOf(invalid.body), ["title", "max_attendees"])
        // Moving both together is fine; so is dropping the end.
        yield* client.events.update({
          path: { id: event.id },
          payload: { start_time: hoursFromNow(20), end_time: hoursFromNow(21) }
        }).pipe(expectOk)
        const noEnd = yield* client.events.update({
          path: { id: event.id },
          payload: { start_time: hoursFromNow(40), end_time: null }
        }).pipe(expectOk)
        assert.strictEqual(noEnd.data.end_time, null)
      }))

    it.effect("community admins edit any event; other members 403; new polls must be the editor's own", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant, visitor } = yield* community()
        const memberPoll = yield* makePoll(member)
        const created = yield* (yield* ownAddressClient(member)).events.create({
          payload: {
            title: "Book club",
            description: "Chapter 3",
            start_time: hoursFromNow(24),
            poll_ids: [memberPoll.id]
          }
        }).pipe(expectOk)
        const path = { id: created.data.id }
        yield* other.client.events.update({ path, payload: { title: "Mine now" } }).pipe(expectError(403, "FORBIDDEN"))
        const superAdmin = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        for (const [client, title] of [[admin.client, "By admin"], [superAdmin, "By super-admin"]] as const) {
          const res = yield* client.events.update({ path, payload: { title } }).pipe(expectOk)
          assert.strictEqual(res.data.title, title)
        }
        // The admin may keep the organiser's poll, not add another member's.
        const otherPoll = yield* makePoll(other)
        yield* admin.client.events.update({ path, payload: { poll_ids: [memberPoll.id], title: "Kept" } }).pipe(
          expectOk
        )
        yield* admin.client.events.update({ path, payload: { poll_ids: [memberPoll.id, otherPoll.id] } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        const row = yield* eventRow(path.id)
        assert.strictEqual(row!["title"], "Kept")
        assert.strictEqual(yield* countWhere("event_polls", path.id), 1)
        yield* visitor.client.events.update({ path, payload: { title: "Anon" } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
      }))

    it.effect("a cancelled event is not edited: 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { member } = yield* community()
        const event = yield* makeEvent(member, { status: "cancelled" })
        yield* member.client.events.update({ path: { id: event.id }, payload: { title: "Back on" } }).pipe(
          expectError(409, "EVENT_CANCELLED")
        )
        assert.strictEqual((yield* eventRow(event.id))!["title"], event.title)
      }))

    it.effect("raising max_attendees promotes waiting members into the new places (the entity is refreshed)", () =>
      Effect.gen(function*() {
        const { member, members: [going, first, second, third], tenant } = yield* community({ members: 4 })
        const event = yield* makeEvent(member, { maxAttendees: 1 })
        yield* insertRsvp(event.id, going!, "going")
        for (const waiter of [first!, second!, third!]) yield* insertWaitlistEntry(event.id, waiter)
        const res = yield* member.client.events.update({ path: { id: event.id }, payload: { max_attendees: 3 } }).pipe(
          expectOk
        )
        assert.deepStrictEqual(res.data.counts, { going: 3, interested: 0, waitlist: 1 })
        assert.strictEqual(yield* rsvpOf(event.id, first!), "going")
        assert.strictEqual(yield* rsvpOf(event.id, second!), "going")
        assert.strictEqual(yield* rsvpOf(event.id, third!), null)
        const promoted = (yield* outboxOf(tenant, "WaitlistPromoted")).map((p) => p["user_id"])
        assert.deepStrictEqual(promoted, [first!.id, second!.id])
      }))
  })
})
