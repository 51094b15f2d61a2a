import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { asJson, countWhere, eventRow, hoursFromNow, inHours, makePoll, outboxOf, rawCall } from "../fixtures/events.js"
import { makeGroup } from "../fixtures/groups.js"
import { makeCategory } from "../fixtures/listings.js"
import { makeTenant } from "../fixtures/tenants.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser, type TestUser } from "../fixtures/users.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"

const summaryOf = (user: TestUser, first: string, last: string) => ({
  id: user.id,
  first_name: first,
  last_name: last,
  avatar_url: null
})

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events: create", (it) => {
  describe("create", () => {
    it.effect("POST creates the event (201) with every field, category by slug and polls; CommunityEventCreated", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Garden Days", type: "event" })
        const poll = yield* makePoll(member)
        const group = yield* makeGroup(member)
        const start = inHours(48)
        const end = inHours(50.5)
        // Raw: the client sends only trimmed titles, and the exact body on the wire is the point here.
        const res = yield* rawCall("POST", EVENTS, member.headers, {
          title: "  Seed swap  ",
          description: "Bring seeds to share",
          start_time: start,
          end_time: end,
          location: "Library",
          latitude: 51.5,
          longitude: -0.12,
          max_attendees: 30,
          is_online: true,
          online_link: "https://meet.example.org/seeds",
          video_url: null,
          allow_remote_attendance: true,
          image_url: "https://img.example.org/seeds.png",
          category_name: "garden-days",
          group_id: group.id,
          federated_visibility: "partners",
          poll_ids: [poll.id, poll.id]
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<{ id: number; created_at: string; updated_at: string }>(res.body)
        const expected = {
          id: created.id,
          title: "Seed swap",
          description: "Bring seeds to share",
          start_time: start,
          end_time: end,
          location: "Library",
          latitude: 51.5,
          longitude: -0.12,
          max_attendees: 30,
          is_online: true,
          online_link: "https://meet.example.org/seeds",
          video_url: null,
          allow_remote_attendance: true,
          image_url: "https://img.example.org/seeds.png",
          cover_image: null,
          category_id: category.id,
          category: { id: category.id, name: "Garden Days", slug: "garden-days" },
          group_id: group.id,
          federated_visibility: "partners",
          members_only: false,
          status: "active",
          cancel_reason: null,
          is_recurring_template: false,
          parent_event_id: null,
          occurrence_date: null,
          series_id: null,
          is_series: false,
          series_count: null,
          recurrence_frequency: null,
          poll_ids: [poll.id],
          user_id: member.id,
          organiser: summaryOf(member, "Mia", "Member"),
          counts: { going: 0, interested: 0, waitlist: 0 },
          created_at: created.created_at,
          updated_at: created.updated_at
        }
        assert.deepStrictEqual(res.body, { data: { ...expected, my_rsvp: null, my_waitlist_position: null }, meta: {} })
        assert.match(created.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        const row = yield* eventRow(created.id)
        assert.include(row, { tenant_id: String(tenant.id), user_id: String(member.id), status: "active" })
        assert.strictEqual(yield* countWhere("event_polls", created.id), 1)

        const [published] = yield* outboxOf(tenant, "CommunityEventCreated")
        includes(published, { event_id: created.id, user_id: member.id, poll_ids: [poll.id] })
        includes(published!["event"], {
          id: created.id,
          title: "Seed swap",
          start_time: start,
          end_time: end,
          location: "Library",
          category_id: category.id,
          group_id: group.id,
          federated_visibility: "partners",
          status: "active"
        })

        // Anyone reads it; without a token there is no `my_rsvp` (raw: the key's absence on the wire). The typed
        // client decodes the same shape.
        const got = yield* rawCall("GET", `${EVENTS}/${created.id}`, visitor.headers)
        assert.strictEqual(got.status, 200, got.text)
        assert.deepStrictEqual(got.body, { data: expected, meta: {} })
        const listed = yield* visitor.client.events.list({ urlParams: {} })
        assert.deepStrictEqual(listed.data.map((e) => e.id), [created.id])
        assert.deepStrictEqual(listed.meta, { per_page: 20, has_more: false })
        assert.strictEqual(listed.data[0]!.my_rsvp, undefined)
      }))

    it.effect("only title, description and start_time are needed; the category may be given by id or by name", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        // Any offset is accepted; responses are UTC with Z (decisions D2). Raw: the client sends UTC only.
        const res = yield* rawCall("POST", EVENTS, member.headers, {
          title: "Walk",
          description: "Around the park",
          start_time: "2099-01-01T10:00:00+02:00"
        })
        assert.strictEqual(res.status, 201, res.text)
        includes(dataOf(res.body), {
          start_time: "2099-01-01T08:00:00.000Z",
          end_time: null,
          location: null,
          max_attendees: null,
          is_online: false,
          allow_remote_attendance: false,
          category_id: null,
          category: null,
          group_id: null,
          federated_visibility: "none",
          members_only: false,
          poll_ids: []
        })
        const category = yield* makeCategory(tenant, { name: "Outdoor Walks", type: "event" })
        const client = yield* ownAddressClient(member)
        for (const reference of [{ category_id: category.id }, { category_name: "Outdoor Walks" }]) {
          const withCategory = yield* client.events.create({
            payload: { title: "Walk", description: "Around the park", start_time: hoursFromNow(3), ...reference }
          }).pipe(expectOk)
          includes(asJson(withCategory.data), {
            category_id: category.id,
            category: { id: category.id, name: "Outdoor Walks", slug: "outdoor-walks" }
          })
        }
      }))

    it.effect("bad input is 422 VALIDATION_ERROR naming each field, and nothing is written", () =>
      Effect.gen(function*() {
        const { admin, member, tenant, visitor } = yield* community()
        const listingCategory = yield* makeCategory(tenant, { name: "Tools" })
        const notMine = yield* makeGroup(admin, { visibility: "private" })
        const awayGroup = yield* makeGroup((yield* community()).member)
        const foreign = yield* makeCategory(yield* makeTenant(), { name: "Away", type: "event" })
        yield* makeCategory(tenant, { name: "Picnics", type: "event" })
        const base = { title: "Picnic", description: "Bring food", start_time: inHours(24) }
        const cases: Array<readonly [Record<string, unknown>, ReadonlyArray<string>]> = [
          [{ ...base, start_time: inHours(-1) }, ["start_time"]],
          [{ ...base, end_time: inHours(23) }, ["end_time"]],
          [{ ...base, end_time: base.start_time }, ["end_time"]],
          [{ ...base, title: "x".repeat(256) }, ["title"]],
          [{ ...base, title: "   " }, ["title"]],
          [{ title: "Picnic", start_time: base.start_time }, ["description"]],
          [{ ...base, description: "" }, ["description"]],
          [{ description: "x" }, ["title", "start_time"]],
          [{ ...base, start_time: "tomorrow" }, ["start_time"]],
          [{ ...base, category_id: listingCategory.id }, ["category_id"]],
          [{ ...base, category_id: foreign.id }, ["category_id"]],
          [{ ...base, category_id: 99_999_999 }, ["category_id"]],
          [{ ...base, category_name: "nothing-like-this" }, ["category_name"]],
          [{ ...base, category_name: "tools" }, ["category_name"]],
          [{ ...base, category_name: "away" }, ["category_name"]],
          [{ ...base, category_name: "picnics", category_id: listingCategory.id }, ["category_name"]],
          [{ ...base, start_time: inHours(-2), end_time: inHours(-3), category_id: 99_999_999 }, [
            "start_time",
            "end_time",
            "category_id"
          ]],
          [{ ...base, max_attendees: 0, latitude: 100, online_link: "ftp://x" }, [
            "max_attendees",
            "latitude",
            "online_link"
          ]],
          [{ ...base, poll_ids: "1" }, ["poll_ids"]],
          // The group must be one of this community that the organiser is an active member of.
          [{ ...base, group_id: notMine.id }, ["group_id"]],
          [{ ...base, group_id: awayGroup.id }, ["group_id"]],
          [{ ...base, group_id: 99_999_999 }, ["group_id"]]
        ]
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", EVENTS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        const list = yield* visitor.client.events.list({ urlParams: {} })
        assert.deepStrictEqual(list.data.map((e) => e.id), [])
        assert.deepStrictEqual(yield* outboxOf(tenant, "CommunityEventCreated"), [])
      }))

    it.effect("poll_ids must all be the caller's polls: another member's or another community's → 403 FORBIDDEN", () =>
      Effect.gen(function*() {
        const { member, other, visitor } = yield* community()
        const mine = yield* makePoll(member)
        const theirs = yield* makePoll(other)
        const away = yield* makePoll(yield* makeUser(yield* makeTenant()))
        const base = { title: "Vote day", description: "We decide", start_time: hoursFromNow(12) }
        const client = yield* ownAddressClient(member)
        for (const pollIds of [[theirs.id], [mine.id, theirs.id], [away.id], [mine.id, 99_999_999]]) {
          const denied = yield* client.events.create({ payload: { ...base, poll_ids: pollIds } }).pipe(
            expectError(403, "FORBIDDEN")
          )
          assert.deepStrictEqual(denied.fields, ["poll_ids"])
        }
        assert.deepStrictEqual((yield* visitor.client.events.list({ urlParams: {} })).data, [])
        const ok = yield* client.events.create({ payload: { ...base, poll_ids: [mine.id] } }).pipe(expectOk)
        assert.deepStrictEqual(ok.data.poll_ids, [mine.id])
      }))

    it.effect("a platform super-admin visiting cannot organise here (403); creating needs a token (401)", () =>
      Effect.gen(function*() {
        const { tenant, visitor } = yield* community()
        const superAdmin = yield* ownAddressClient({ headers: yield* authHeaders(yield* makeSuperAdmin(), tenant) })
        const payload = { title: "Not mine", description: "x", start_time: hoursFromNow(5) }
        yield* superAdmin.events.create({ payload }).pipe(expectError(403, "FORBIDDEN"))
        yield* visitor.client.events.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        assert.deepStrictEqual((yield* visitor.client.events.list({ urlParams: {} })).data, [])
      }))
  })
})
