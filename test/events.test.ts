import { SqlClient, Statement } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Actor, CurrentTenant, CurrentUser, type Tenant, type TenantId, type UserId } from "@timebank/domain"
import { EventsService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import {
  insertRsvp,
  insertWaitlistEntry,
  linkOccurrences,
  makeEvent,
  makePoll,
  type TestEvent
} from "./fixtures/events.js"
import { makeCategory } from "./fixtures/listings.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"

const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((e) => e.id)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>

/** Every request from an address of its own, so that the create and delete limits are never met by accident. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const inHours = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString()

const members = (tenant: Tenant, n: number) => Effect.forEach(Array.from({ length: n }), () => makeUser(tenant))

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

const countWhere = (table: string, eventId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE event_id = ${eventId}`.pipe(
        Effect.map((rows) => rows[0]!.n)
      )
  )

const rsvpOf = (eventId: number, user: TestUser) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string }>`SELECT status FROM event_rsvps WHERE event_id = ${eventId} AND user_id = ${user.id}`.pipe(
        Effect.map((rows) => rows[0]?.status ?? null)
      )
  )

const insertReminder = (eventId: number, user: TestUser) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, scheduled_for)
      VALUES (${user.tenant.id}, ${eventId}, ${user.id}, 60, 'platform', now() + interval '1 day')`
  ).pipe(
    Effect.orDie
  )

const summaryOf = (user: TestUser, first: string, last: string) => ({
  id: user.id,
  first_name: first,
  last_name: last,
  avatar_url: null
})

const sorted = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events", (it) => {
  describe("create", () => {
    it.effect("POST creates the event (201) with every field, category by slug and polls; CommunityEventCreated", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Garden Days", type: "event" })
        const poll = yield* makePoll(member)
        const start = inHours(48)
        const end = inHours(50.5)
        const res = yield* call("POST", EVENTS, memberHeaders, {
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
          group_id: 77,
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
          group_id: 77,
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
          group_id: 77,
          federated_visibility: "partners",
          status: "active"
        })

        // Anyone reads it; without a token there is no `my_rsvp`. The typed client decodes the same shape.
        const got = yield* call("GET", `${EVENTS}/${created.id}`, anonymous)
        assert.strictEqual(got.status, 200, got.text)
        assert.deepStrictEqual(got.body, { data: expected, meta: {} })
        const client = yield* apiClient(anonymous)
        const listed = yield* client.events.list({ urlParams: {} })
        assert.deepStrictEqual(listed.data.map((e) => e.id), [created.id])
        assert.deepStrictEqual(listed.meta, { per_page: 20, has_more: false })
        assert.strictEqual(listed.data[0]!.my_rsvp, undefined)
      }))

    it.effect("only title, description and start_time are needed; the category may be given by id or by name", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        // Any offset is accepted; responses are UTC with Z (decisions D2).
        const res = yield* call("POST", EVENTS, memberHeaders, {
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
        for (const reference of [{ category_id: category.id }, { category_name: "Outdoor Walks" }]) {
          const withCategory = yield* call("POST", EVENTS, memberHeaders, {
            title: "Walk",
            description: "Around the park",
            start_time: inHours(3),
            ...reference
          })
          assert.strictEqual(withCategory.status, 201, withCategory.text)
          includes(dataOf(withCategory.body), {
            category_id: category.id,
            category: { id: category.id, name: "Outdoor Walks", slug: "outdoor-walks" }
          })
        }
      }))

    it.effect("bad input is 422 VALIDATION_ERROR naming each field, and nothing is written", () =>
      Effect.gen(function*() {
        const { anonymous, memberHeaders, tenant } = yield* community()
        const listingCategory = yield* makeCategory(tenant, { name: "Tools" })
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
          [{ ...base, poll_ids: "1" }, ["poll_ids"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("POST", EVENTS, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        const list = yield* call("GET", EVENTS, anonymous)
        assert.deepStrictEqual(idsOf(list.body), [])
        assert.deepStrictEqual(yield* outboxOf(tenant, "CommunityEventCreated"), [])
      }))

    it.effect("poll_ids must all be the caller's polls: another member's or another community's → 403 FORBIDDEN", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, other } = yield* community()
        const mine = yield* makePoll(member)
        const theirs = yield* makePoll(other)
        const away = yield* makePoll(yield* makeUser(yield* makeTenant()))
        const base = { title: "Vote day", description: "We decide", start_time: inHours(12) }
        for (const pollIds of [[theirs.id], [mine.id, theirs.id], [away.id], [mine.id, 99_999_999]]) {
          const res = yield* call("POST", EVENTS, memberHeaders, { ...base, poll_ids: pollIds })
          assert.strictEqual(res.status, 403, res.text)
          assert.strictEqual(codeOf(res.body), "FORBIDDEN")
          assert.deepStrictEqual(fieldsOf(res.body), ["poll_ids"])
        }
        assert.deepStrictEqual(idsOf((yield* call("GET", EVENTS, anonymous)).body), [])
        const ok = yield* call("POST", EVENTS, memberHeaders, { ...base, poll_ids: [mine.id] })
        assert.strictEqual(ok.status, 201, ok.text)
        assert.deepStrictEqual(dataOf<{ poll_ids: Array<number> }>(ok.body).poll_ids, [mine.id])
      }))

    it.effect("a platform super-admin visiting cannot organise here (403); creating needs a token (401)", () =>
      Effect.gen(function*() {
        const { anonymous, tenant } = yield* community()
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
        const body = { title: "Not mine", description: "x", start_time: inHours(5) }
        const res = yield* call("POST", EVENTS, superHeaders, body)
        assert.strictEqual(res.status, 403, res.text)
        assert.strictEqual(codeOf(res.body), "FORBIDDEN")
        const anon = yield* call("POST", EVENTS, anonymous, body)
        assert.strictEqual(anon.status, 401)
        assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
        assert.deepStrictEqual(idsOf((yield* call("GET", EVENTS, anonymous)).body), [])
      }))
  })

  describe("update", () => {
    it.effect("the organiser edits: fields change, null clears, poll_ids replaces; CommunityEventUpdated says what", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Repair", type: "event" })
        const [first, second] = [yield* makePoll(member), yield* makePoll(member)]
        const created = yield* call("POST", EVENTS, memberHeaders, {
          title: "Repair cafe",
          description: "Bring broken things",
          start_time: inHours(24),
          end_time: inHours(26),
          location: "Hall",
          max_attendees: 10,
          poll_ids: [first.id]
        })
        const id = dataOf<{ id: number }>(created.body).id
        const newStart = inHours(30)
        const res = yield* call("PUT", `${EVENTS}/${id}`, memberHeaders, {
          title: "Repair café",
          description: "Bring broken things",
          location: null,
          start_time: newStart,
          end_time: null,
          category_id: category.id,
          max_attendees: null,
          poll_ids: [second.id, first.id]
        })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), {
          id,
          title: "Repair café",
          location: null,
          start_time: newStart,
          end_time: null,
          category_id: category.id,
          max_attendees: null,
          status: "active"
        })
        assert.sameMembers(dataOf<{ poll_ids: Array<number> }>(res.body).poll_ids, [first.id, second.id])
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
        for (const body of [{}, { title: "Repair café", location: null, poll_ids: [first.id, second.id] }]) {
          const same = yield* call("PUT", `${EVENTS}/${id}`, memberHeaders, body)
          assert.strictEqual(same.status, 200, same.text)
        }
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 1)
        const description = yield* call("PUT", `${EVENTS}/${id}`, memberHeaders, {
          description: "New text",
          poll_ids: []
        })
        assert.deepStrictEqual(dataOf<{ poll_ids: Array<number> }>(description.body).poll_ids, [])
        includes((yield* outboxOf(tenant, "CommunityEventUpdated"))[1], {
          changed: [],
          fields: ["description", "poll_ids"]
        })
        assert.strictEqual(yield* countWhere("event_polls", id), 0)
      }))

    it.effect("times: a new start must be in the future, the end after the (merged) start; bad input is 422", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const running = yield* makeEvent(member, { startsInHours: -1, hours: 3 })
        // A running event keeps its past start: other edits go through.
        const ok = yield* call("PUT", `${EVENTS}/${running.id}`, memberHeaders, { location: "Garden" })
        assert.strictEqual(ok.status, 200, ok.text)
        const keepStart = yield* eventRow(running.id)
        const same = yield* call("PUT", `${EVENTS}/${running.id}`, memberHeaders, {
          start_time: (keepStart!["start_time"] as Date).toISOString()
        })
        assert.strictEqual(same.status, 200, same.text)

        const event = yield* makeEvent(member, { startsInHours: 10, hours: 2 })
        const cases: Array<readonly [Record<string, unknown>, ReadonlyArray<string>]> = [
          [{ start_time: inHours(-5) }, ["start_time"]],
          [{ start_time: inHours(13) }, ["start_time"]],
          [{ end_time: inHours(9) }, ["end_time"]],
          [{ start_time: inHours(20), end_time: inHours(19) }, ["end_time"]],
          [{ title: "", max_attendees: -1 }, ["title", "max_attendees"]],
          [{ category_id: (yield* makeCategory(tenant)).id }, ["category_id"]],
          [{ category_id: 99_999_999, start_time: inHours(-1) }, ["category_id", "start_time"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("PUT", `${EVENTS}/${event.id}`, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        // Moving both together is fine; so is dropping the end.
        const moved = yield* call("PUT", `${EVENTS}/${event.id}`, memberHeaders, {
          start_time: inHours(20),
          end_time: inHours(21)
        })
        assert.strictEqual(moved.status, 200, moved.text)
        const noEnd = yield* call("PUT", `${EVENTS}/${event.id}`, memberHeaders, {
          start_time: inHours(40),
          end_time: null
        })
        assert.strictEqual(noEnd.status, 200, noEnd.text)
        assert.strictEqual(dataOf<{ end_time: null }>(noEnd.body).end_time, null)
      }))

    it.effect("community admins edit any event; other members 403; new polls must be the editor's own", () =>
      Effect.gen(function*() {
        const { adminHeaders, member, memberHeaders, other, otherHeaders, tenant } = yield* community()
        const memberPoll = yield* makePoll(member)
        const created = yield* call("POST", EVENTS, memberHeaders, {
          title: "Book club",
          description: "Chapter 3",
          start_time: inHours(24),
          poll_ids: [memberPoll.id]
        })
        const id = dataOf<{ id: number }>(created.body).id
        const denied = yield* call("PUT", `${EVENTS}/${id}`, otherHeaders, { title: "Mine now" })
        assert.strictEqual(denied.status, 403, denied.text)
        assert.strictEqual(codeOf(denied.body), "FORBIDDEN")
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
        for (const [headers, title] of [[adminHeaders, "By admin"], [superHeaders, "By super-admin"]] as const) {
          const res = yield* call("PUT", `${EVENTS}/${id}`, headers, { title })
          assert.strictEqual(res.status, 200, res.text)
          assert.strictEqual(dataOf<{ title: string }>(res.body).title, title)
        }
        // The admin may keep the organiser's poll, not add another member's.
        const otherPoll = yield* makePoll(other)
        const keep = yield* call("PUT", `${EVENTS}/${id}`, adminHeaders, { poll_ids: [memberPoll.id], title: "Kept" })
        assert.strictEqual(keep.status, 200, keep.text)
        const add = yield* call("PUT", `${EVENTS}/${id}`, adminHeaders, { poll_ids: [memberPoll.id, otherPoll.id] })
        assert.strictEqual(add.status, 403, add.text)
        assert.strictEqual(codeOf(add.body), "FORBIDDEN")
        const row = yield* eventRow(id)
        assert.strictEqual(row!["title"], "Kept")
        assert.strictEqual(yield* countWhere("event_polls", id), 1)
        const anon = yield* call("PUT", `${EVENTS}/${id}`, tenantHeaders(tenant), { title: "Anon" })
        assert.strictEqual(anon.status, 401)
      }))

    it.effect("a cancelled event is not edited: 409 EVENT_CANCELLED", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const event = yield* makeEvent(member, { status: "cancelled" })
        const res = yield* call("PUT", `${EVENTS}/${event.id}`, memberHeaders, { title: "Back on" })
        assert.strictEqual(res.status, 409, res.text)
        assert.strictEqual(codeOf(res.body), "EVENT_CANCELLED")
        assert.strictEqual((yield* eventRow(event.id))!["title"], event.title)
      }))

    it.effect("raising max_attendees promotes waiting members into the new places (the entity is refreshed)", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const [going, first, second, third] = yield* members(tenant, 4)
        const event = yield* makeEvent(member, { maxAttendees: 1 })
        yield* insertRsvp(event.id, going!, "going")
        for (const waiter of [first!, second!, third!]) yield* insertWaitlistEntry(event.id, waiter)
        const res = yield* call("PUT", `${EVENTS}/${event.id}`, memberHeaders, { max_attendees: 3 })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(dataOf<{ counts: unknown }>(res.body).counts, { going: 3, interested: 0, waitlist: 1 })
        assert.strictEqual(yield* rsvpOf(event.id, first!), "going")
        assert.strictEqual(yield* rsvpOf(event.id, second!), "going")
        assert.strictEqual(yield* rsvpOf(event.id, third!), null)
        const promoted = (yield* outboxOf(tenant, "WaitlistPromoted")).map((p) => p["user_id"])
        assert.deepStrictEqual(promoted, [first!.id, second!.id])
      }))
  })

  describe("list and detail", () => {
    it.effect("upcoming: not yet ended, soonest first; past: ended, most recent first; the cursor walks both", () =>
      Effect.gen(function*() {
        const { member, anonymous } = yield* community()
        const upcoming: Array<{ id: number; start: number }> = []
        const past: Array<{ id: number; start: number }> = []
        const sql = yield* SqlClient.SqlClient
        const place = (event: TestEvent, start: Date, end: Date | null) =>
          sql`UPDATE events SET start_time = ${start}, end_time = ${end} WHERE id = ${event.id}`
        const base = Date.now()
        // Starts shared by three events each, so the id breaks ties across page boundaries.
        for (let i = 0; i < 13; i++) {
          const event = yield* makeEvent(member)
          const start = new Date(base + (Math.floor(i / 3) + 1) * HOUR)
          yield* place(event, start, i % 2 === 0 ? null : new Date(start.getTime() + HOUR))
          upcoming.push({ id: event.id, start: start.getTime() })
        }
        for (let i = 0; i < 7; i++) {
          const event = yield* makeEvent(member)
          const start = new Date(base - (Math.floor(i / 2) + 5) * HOUR)
          yield* place(event, start, i % 2 === 0 ? null : new Date(start.getTime() + HOUR))
          past.push({ id: event.id, start: start.getTime() })
        }
        // Running now (started, not ended) is upcoming; cancelled events are in neither list.
        const running = yield* makeEvent(member)
        yield* place(running, new Date(base - 2 * HOUR), new Date(base + 2 * HOUR))
        upcoming.push({ id: running.id, start: base - 2 * HOUR })
        yield* makeEvent(member, { status: "cancelled", startsInHours: 3 })
        yield* makeEvent(member, { status: "cancelled", startsInHours: -30 })
        const byStart = (a: { id: number; start: number }, b: { id: number; start: number }) =>
          a.start - b.start || a.id - b.id
        const expectedUpcoming = [...upcoming].sort(byStart).map((e) => e.id)
        const expectedPast = [...past].sort(byStart).reverse().map((e) => e.id)

        const walk = (query: string, perPage: number) =>
          Effect.gen(function*() {
            const ids: Array<number> = []
            let cursor: string | undefined
            let pages = 0
            do {
              const res = yield* call(
                "GET",
                `${EVENTS}?per_page=${perPage}${query}${
                  cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`
                }`,
                anonymous
              )
              assert.strictEqual(res.status, 200, res.text)
              const page = res.body as { data: Array<{ id: number }>; meta: Record<string, unknown> }
              assert.isAtMost(page.data.length, perPage)
              ids.push(...page.data.map((e) => e.id))
              cursor = page.meta["cursor"] as string | undefined
              assert.strictEqual(page.meta["has_more"], cursor !== undefined)
              pages++
            } while (cursor !== undefined && pages < 30)
            return { ids, pages }
          })

        const first = yield* call("GET", EVENTS, anonymous)
        assert.deepStrictEqual(idsOf(first.body), expectedUpcoming)
        assert.deepStrictEqual((first.body as { meta: unknown }).meta, { per_page: 20, has_more: false })
        const up = yield* walk("", 4)
        assert.deepStrictEqual(up.ids, expectedUpcoming)
        assert.strictEqual(up.pages, 4)
        const down = yield* walk("&when=past", 3)
        assert.deepStrictEqual(down.ids, expectedPast)
        assert.strictEqual(down.pages, 3)
        assert.deepStrictEqual((yield* walk("&when=upcoming", 14)).ids, expectedUpcoming)

        for (
          const [query, field] of [
            ["cursor=not-a-cursor", "cursor"],
            [`cursor=${Buffer.from(JSON.stringify([1, -1])).toString("base64url")}`, "cursor"],
            ["per_page=51", "per_page"],
            ["when=later", "when"],
            ["user_id=abc", "user_id"]
          ] as const
        ) {
          const res = yield* call("GET", `${EVENTS}?${query}`, anonymous)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
      }))

    it.effect("filters: organiser, category and search (% and _ literal) keep the order", () =>
      Effect.gen(function*() {
        const { anonymous, member, other, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { type: "event" })
        const a = yield* makeEvent(member, { title: "Sing_along 100%", startsInHours: 3 })
        const b = yield* makeEvent(other, { title: "Singalong", startsInHours: 2 })
        const c = yield* makeEvent(member, { title: "Chess", startsInHours: 1 })
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE events SET category_id = ${category.id} WHERE id IN (${a.id}, ${c.id})`)
        const ids = (query: string) =>
          Effect.map(call("GET", `${EVENTS}?${query}`, anonymous), (r) => idsOf(r.body))
        assert.deepStrictEqual(yield* ids(`user_id=${member.id}`), [c.id, a.id])
        assert.deepStrictEqual(yield* ids(`category_id=${category.id}`), [c.id, a.id])
        assert.deepStrictEqual(yield* ids("search=sing"), [b.id, a.id])
        assert.deepStrictEqual(yield* ids("search=g_a"), [a.id])
        assert.deepStrictEqual(yield* ids("search=100%25"), [a.id])
        assert.deepStrictEqual(yield* ids(`search=sing&user_id=${other.id}`), [b.id])
      }))

    it.effect("counts per event, and with a token the caller's own RSVP and waitlist position on every card", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, other, tenant } = yield* community()
        const [x, y, z, w] = yield* members(tenant, 4)
        const going = yield* makeEvent(other, { startsInHours: 1 })
        const interested = yield* makeEvent(other, { startsInHours: 2 })
        const full = yield* makeEvent(other, { startsInHours: 3, maxAttendees: 2 })
        const untouched = yield* makeEvent(other, { startsInHours: 4 })
        yield* insertRsvp(going.id, member, "going")
        yield* insertRsvp(going.id, x!, "attended")
        yield* insertRsvp(going.id, y!, "interested")
        yield* insertRsvp(going.id, z!, "not_going")
        yield* insertRsvp(interested.id, member, "interested")
        yield* insertRsvp(full.id, x!, "going")
        yield* insertRsvp(full.id, y!, "going")
        yield* insertWaitlistEntry(full.id, z!)
        yield* insertWaitlistEntry(full.id, member)
        yield* insertWaitlistEntry(full.id, w!)

        type Card = { id: number; counts: unknown; my_rsvp?: unknown; my_waitlist_position?: unknown }
        const cards = (headers: Headers) =>
          Effect.map(call("GET", EVENTS, headers), (res) => dataOf<Array<Card>>(res.body))
        const anonymousCards = yield* cards(anonymous)
        assert.deepStrictEqual(anonymousCards.map((c) => c.id), [going.id, interested.id, full.id, untouched.id])
        assert.deepStrictEqual(anonymousCards.map((c) => c.counts), [
          { going: 2, interested: 1, waitlist: 0 },
          { going: 0, interested: 1, waitlist: 0 },
          { going: 2, interested: 0, waitlist: 3 },
          { going: 0, interested: 0, waitlist: 0 }
        ])
        for (const card of anonymousCards) {
          assert.notProperty(card, "my_rsvp")
          assert.notProperty(card, "my_waitlist_position")
        }
        // A token that does not authenticate is refused, never read as an anonymous caller (D4).
        const badToken = yield* call("GET", EVENTS, { ...anonymous, authorization: "Bearer nope" })
        assert.strictEqual(badToken.status, 401, badToken.text)

        const mine = yield* cards(memberHeaders)
        assert.deepStrictEqual(mine.map((c) => [c.my_rsvp, c.my_waitlist_position]), [
          ["going", null],
          ["interested", null],
          [null, 2],
          [null, null]
        ])
        const detail = yield* call("GET", `${EVENTS}/${full.id}`, memberHeaders)
        includes(dataOf(detail.body), { my_rsvp: null, my_waitlist_position: 2 })
        const wDetail = yield* call("GET", `${EVENTS}/${full.id}`, yield* authHeaders(w!))
        includes(dataOf(wDetail.body), { my_rsvp: null, my_waitlist_position: 3 })
      }))

    it.effect("a page loads each relation with one query, whatever its size (no N+1)", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { type: "event" })
        const poll = yield* makePoll(member)
        for (let i = 0; i < 12; i++) {
          const event = yield* makeEvent([member, other, admin][i % 3]!, { startsInHours: i + 1 })
          yield* insertRsvp(event.id, [member, other, admin][(i + 1) % 3]!, "going")
          yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.zipRight(
              sql`UPDATE events SET category_id = ${category.id} WHERE id = ${event.id}`,
              sql`INSERT INTO event_polls (event_id, poll_id) VALUES (${event.id}, ${poll.id})`
            ))
        }
        const viewer: Actor = {
          userId: member.id as UserId,
          tenantId: tenant.id as TenantId,
          actingTenantId: tenant.id as TenantId,
          role: "member",
          status: "active",
          isApproved: true,
          isSuperAdmin: false,
          isGod: false,
          isPlatformUser: false,
          sessionId: null,
          impersonatorId: null
        }
        const statementsOf = (withViewer: boolean) =>
          Effect.gen(function*() {
            const statements: Array<string> = []
            const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
              Statement.withTransformer(effect, (statement) =>
                Effect.sync(() => {
                  statements.push(statement.compile()[0])
                  return statement
                }))
            const listed = Effect.flatMap(EventsService, (events) => counted(events.list({ per_page: 50 })))
            const page = yield* (withViewer ? Effect.provideService(listed, CurrentUser, viewer) : listed).pipe(
              Effect.provide(EventsService.Default),
              Effect.provideService(CurrentTenant, tenant)
            )
            assert.strictEqual(page.data.length, 12)
            assert.isTrue(page.data.every((e) => e.poll_ids[0] === poll.id && e.counts.going === 1))
            return statements
          })
        const anonymous = yield* statementsOf(false)
        // The page, organisers, categories, counts and poll links.
        assert.strictEqual(anonymous.length, 5, anonymous.join("\n"))
        assert.strictEqual(anonymous.filter((s) => /FROM users/.test(s)).length, 1)
        assert.strictEqual(anonymous.filter((s) => /FROM categories/.test(s)).length, 1)
        const signedIn = yield* statementsOf(true)
        // ... and the viewer's own RSVPs and waitlist places.
        assert.strictEqual(signedIn.length, 6, signedIn.join("\n"))
      }))

    it.effect("GET /{id}: cancelled events stay readable; unknown, other communities' and bad ids are 404", () =>
      Effect.gen(function*() {
        const { anonymous, member } = yield* community()
        const event = yield* makeEvent(member, { status: "cancelled" })
        const got = yield* call("GET", `${EVENTS}/${event.id}`, anonymous)
        assert.strictEqual(got.status, 200, got.text)
        includes(dataOf(got.body), { id: event.id, status: "cancelled" })
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        for (const id of [String(foreign.id), "99999999", "abc", "0", "-1", "1.5"]) {
          const res = yield* call("GET", `${EVENTS}/${id}`, anonymous)
          assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
      }))
  })

  describe("cancel", () => {
    it.effect("the organiser cancels with a reason; EventCancelled names going/interested/invited/waiting once each", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, tenant } = yield* community()
        const [going, interested, invited, notGoing, declined, attended, both, w1, w2] = yield* members(tenant, 9)
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

        const res = yield* call("POST", `${EVENTS}/${event.id}/cancel`, memberHeaders, { reason: "  Storm warning " })
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

        const again = yield* call("POST", `${EVENTS}/${event.id}/cancel`, memberHeaders, {})
        assert.strictEqual(again.status, 409, again.text)
        assert.strictEqual(codeOf(again.body), "EVENT_ALREADY_CANCELLED")
        assert.strictEqual((yield* outboxOf(tenant, "EventCancelled")).length, 1)
        // Still readable, no longer listed; the answers stay for the record.
        includes(dataOf((yield* call("GET", `${EVENTS}/${event.id}`, anonymous)).body), { status: "cancelled" })
        assert.deepStrictEqual(idsOf((yield* call("GET", EVENTS, anonymous)).body), [])
        assert.strictEqual(yield* countWhere("event_rsvps", event.id), 8)
      }))

    it.effect("the body is optional: no body, {} and null all cancel without a reason; the typed client too", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const bodies = [undefined, "{}", "null", JSON.stringify({ reason: null })]
        for (const body of bodies) {
          const event = yield* makeEvent(member)
          const res = yield* rawRequest("POST", `${EVENTS}/${event.id}/cancel`, {
            headers: memberHeaders,
            ...(body === undefined ? {} : { body })
          })
          assert.strictEqual(res.status, 200, `${body}: ${res.text}`)
          includes(dataOf(res.body), { status: "cancelled", cancel_reason: null })
        }
        const event = yield* makeEvent(member)
        const client = yield* apiClient(memberHeaders)
        const cancelled = yield* client.events.cancel({ path: { id: event.id as never }, payload: {} })
        assert.strictEqual(cancelled.data.status, "cancelled")
        const bad = yield* call("POST", `${EVENTS}/${(yield* makeEvent(member)).id}/cancel`, memberHeaders, {
          reason: 42
        })
        assert.strictEqual(bad.status, 422, bad.text)
      }))

    it.effect("a community admin may cancel; other members get 403 and the event stays on", () =>
      Effect.gen(function*() {
        const { admin, adminHeaders, member, otherHeaders, tenant } = yield* community()
        const event = yield* makeEvent(member)
        const denied = yield* call("POST", `${EVENTS}/${event.id}/cancel`, otherHeaders, {})
        assert.strictEqual(denied.status, 403, denied.text)
        assert.strictEqual(codeOf(denied.body), "FORBIDDEN")
        assert.include(yield* eventRow(event.id), { status: "active" })
        const res = yield* call("POST", `${EVENTS}/${event.id}/cancel`, adminHeaders, { reason: "Venue closed" })
        assert.strictEqual(res.status, 200, res.text)
        const [cancelled] = yield* outboxOf(tenant, "EventCancelled")
        includes(cancelled, { event_id: event.id, user_id: member.id, cancelled_by: admin.id, reason: "Venue closed" })
      }))

    it.effect("a recurring template cancels its future occurrences only; recipients span them, once each", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const [a, b, c, d, w] = yield* members(tenant, 5)
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

        const res = yield* call("POST", `${EVENTS}/${template.id}/cancel`, memberHeaders, { reason: "Season over" })
        assert.strictEqual(res.status, 200, res.text)
        includes(dataOf(res.body), { status: "cancelled", is_recurring_template: true })
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
        const { anonymous, member, memberHeaders, tenant } = yield* community()
        const [going, interested, waiting, declined] = yield* members(tenant, 4)
        const poll = yield* makePoll(member)
        const created = yield* call("POST", EVENTS, memberHeaders, {
          title: "Potluck",
          description: "Bring a dish",
          start_time: inHours(6),
          poll_ids: [poll.id]
        })
        const id = dataOf<{ id: number }>(created.body).id
        yield* insertRsvp(id, going!, "going")
        yield* insertRsvp(id, interested!, "interested")
        yield* insertRsvp(id, declined!, "declined")
        yield* insertRsvp(id, member, "going")
        yield* insertWaitlistEntry(id, waiting!)
        yield* insertReminder(id, going!)

        const res = yield* call("DELETE", `${EVENTS}/${id}`, memberHeaders)
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(res.body, { data: { id, deleted: true }, meta: {} })
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

        assert.strictEqual((yield* call("GET", `${EVENTS}/${id}`, anonymous)).status, 404)
        const again = yield* call("DELETE", `${EVENTS}/${id}`, memberHeaders)
        assert.strictEqual(again.status, 404)
        assert.strictEqual(codeOf(again.body), "NOT_FOUND")
      }))

    it.effect("nobody is told about a past or already cancelled event going away; others get 403", () =>
      Effect.gen(function*() {
        const { adminHeaders, member, otherHeaders, tenant } = yield* community()
        const [x] = yield* members(tenant, 1)
        const past = yield* makeEvent(member, { startsInHours: -30 })
        const cancelled = yield* makeEvent(member, { status: "cancelled" })
        for (const event of [past, cancelled]) yield* insertRsvp(event.id, x!, "going")
        const denied = yield* call("DELETE", `${EVENTS}/${past.id}`, otherHeaders)
        assert.strictEqual(denied.status, 403, denied.text)
        assert.strictEqual(codeOf(denied.body), "FORBIDDEN")
        assert.isDefined(yield* eventRow(past.id))
        for (const event of [past, cancelled]) {
          const res = yield* call("DELETE", `${EVENTS}/${event.id}`, adminHeaders)
          assert.strictEqual(res.status, 200, res.text)
        }
        const payloads = yield* outboxOf(tenant, "EventDeleted")
        assert.deepStrictEqual(payloads.map((p) => [p["event_id"], p["recipients"]]), [[past.id, []], [
          cancelled.id,
          []
        ]])
      }))

    it.effect("a recurring template deletes its future occurrences and detaches the past ones", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const [a, b, c] = yield* members(tenant, 3)
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

        const res = yield* call("DELETE", `${EVENTS}/${template.id}`, memberHeaders)
        assert.strictEqual(res.status, 200, res.text)
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

  describe("tenancy, roles and the feature gate", () => {
    it.effect("another community's event is 404 on every route, for its members and admins alike", () =>
      Effect.gen(function*() {
        const { adminHeaders, memberHeaders } = yield* community()
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        const routes: Array<readonly [Method, string, unknown?]> = [
          ["GET", `${EVENTS}/${foreign.id}`],
          ["PUT", `${EVENTS}/${foreign.id}`, { title: "Mine" }],
          ["POST", `${EVENTS}/${foreign.id}/cancel`, {}],
          ["DELETE", `${EVENTS}/${foreign.id}`]
        ]
        for (const headers of [memberHeaders, adminHeaders]) {
          for (const [method, path, body] of routes) {
            const res = yield* call(method, path, headers, body)
            assert.strictEqual(res.status, 404, `${method} ${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
        }
        assert.include(yield* eventRow(foreign.id), { status: "active", title: foreign.title })
        // A poll of another community cannot be attached either (403, see create).
      }))

    it.effect("with events switched off every event route is 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { adminHeaders, anonymous, member, memberHeaders } = yield* community({ features: { events: false } })
        const event = yield* makeEvent(member)
        const routes: Array<readonly [Method, string, Headers, unknown?]> = [
          ["GET", EVENTS, anonymous],
          ["GET", `${EVENTS}/${event.id}`, anonymous],
          ["POST", EVENTS, memberHeaders, { title: "Gated", description: "x", start_time: inHours(3) }],
          ["PUT", `${EVENTS}/${event.id}`, memberHeaders, { title: "Gated" }],
          ["POST", `${EVENTS}/${event.id}/cancel`, memberHeaders, {}],
          ["DELETE", `${EVENTS}/${event.id}`, memberHeaders],
          ["GET", "/api/v2/admin/events", adminHeaders],
          ["GET", `/api/v2/admin/events/${event.id}`, adminHeaders],
          ["POST", `/api/v2/admin/events/${event.id}/cancel`, adminHeaders, {}],
          ["DELETE", `/api/v2/admin/events/${event.id}`, adminHeaders]
        ]
        for (const [method, path, headers, body] of routes) {
          const res = yield* call(method, path, headers, body)
          assert.strictEqual(res.status, 403, `${method} ${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "FEATURE_DISABLED")
        }
        assert.include(yield* eventRow(event.id), { status: "active", title: event.title })
        assert.strictEqual((yield* call("GET", EVENTS, tenantHeaders(yield* makeTenant()))).status, 200)
      }))
  })

  describe("rate limits", () => {
    it.effect("create: 10 per minute per IP, then 429 RATE_LIMITED with Retry-After", () =>
      Effect.gen(function*() {
        const { anonymous, memberHeaders } = yield* community()
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
        assert.strictEqual(idsOf((yield* call("GET", `${EVENTS}?per_page=50`, anonymous)).body).length, 10)
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
