import { SqlClient, Statement } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Actor, CurrentTenant, CurrentUser, type TenantId, type UserId } from "@timebank/domain"
import { EventsService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, fieldsOf } from "../fixtures/bodies.js"
import { type ApiClient, expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import {
  asJson,
  eventCursor,
  insertRsvp,
  insertWaitlistEntry,
  makeEvent,
  makePoll,
  rawCall,
  type TestEvent
} from "../fixtures/events.js"
import { makeCategory } from "../fixtures/listings.js"
import { makeTenant } from "../fixtures/tenants.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeUser } from "../fixtures/users.js"

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("events: list and detail", (it) => {
  describe("list and detail", () => {
    it.effect("upcoming: not yet ended, soonest first; past: ended, most recent first; the cursor walks both", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
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

        const walk = (when: "upcoming" | "past" | undefined, perPage: number) =>
          Effect.gen(function*() {
            const ids: Array<number> = []
            let cursor: string | undefined
            let pages = 0
            do {
              const page = yield* visitor.client.events.list({
                urlParams: {
                  per_page: perPage,
                  ...(when === undefined ? {} : { when }),
                  ...(cursor === undefined ? {} : { cursor: eventCursor(cursor) })
                }
              }).pipe(expectOk)
              assert.isAtMost(page.data.length, perPage)
              ids.push(...page.data.map((e) => e.id))
              cursor = page.meta.cursor
              assert.strictEqual(page.meta.has_more, cursor !== undefined)
              pages++
            } while (cursor !== undefined && pages < 30)
            return { ids, pages }
          })

        const first = yield* visitor.client.events.list({ urlParams: {} })
        assert.deepStrictEqual(first.data.map((e) => e.id), expectedUpcoming)
        assert.deepStrictEqual(first.meta, { per_page: 20, has_more: false })
        const up = yield* walk(undefined, 4)
        assert.deepStrictEqual(up.ids, expectedUpcoming)
        assert.strictEqual(up.pages, 4)
        const down = yield* walk("past", 3)
        assert.deepStrictEqual(down.ids, expectedPast)
        assert.strictEqual(down.pages, 3)
        assert.deepStrictEqual((yield* walk("upcoming", 14)).ids, expectedUpcoming)

        // Raw: parameters the client would not encode.
        for (
          const [query, field] of [
            ["cursor=not-a-cursor", "cursor"],
            [`cursor=${Buffer.from(JSON.stringify([1, -1])).toString("base64url")}`, "cursor"],
            ["per_page=51", "per_page"],
            ["when=later", "when"],
            ["user_id=abc", "user_id"]
          ] as const
        ) {
          const res = yield* rawCall("GET", `${EVENTS}?${query}`, visitor.headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [field])
        }
      }))

    it.effect("filters: organiser, category and search (% and _ literal) keep the order", () =>
      Effect.gen(function*() {
        const { member, other, tenant, visitor } = yield* community()
        const category = yield* makeCategory(tenant, { type: "event" })
        const a = yield* makeEvent(member, { title: "Sing_along 100%", startsInHours: 3 })
        const b = yield* makeEvent(other, { title: "Singalong", startsInHours: 2 })
        const c = yield* makeEvent(member, { title: "Chess", startsInHours: 1 })
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE events SET category_id = ${category.id} WHERE id IN (${a.id}, ${c.id})`)
        const ids = (urlParams: { user_id?: number; category_id?: number; search?: string }) =>
          Effect.map(visitor.client.events.list({ urlParams }), (page) =>
            page.data.map((e) => e.id))
        assert.deepStrictEqual(yield* ids({ user_id: member.id }), [c.id, a.id])
        assert.deepStrictEqual(yield* ids({ category_id: category.id }), [c.id, a.id])
        assert.deepStrictEqual(yield* ids({ search: "sing" }), [b.id, a.id])
        assert.deepStrictEqual(yield* ids({ search: "g_a" }), [a.id])
        assert.deepStrictEqual(yield* ids({ search: "100%" }), [a.id])
        assert.deepStrictEqual(yield* ids({ search: "sing", user_id: other.id }), [b.id])
      }))

    it.effect("counts per event, and with a token the caller's own RSVP and waitlist position on every card", () =>
      Effect.gen(function*() {
        const { member, members: [x, y, z, w], other, visitor } = yield* community({ members: 4 })
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

        const cards = (client: ApiClient) =>
          Effect.map(client.events.list({ urlParams: {} }).pipe(expectOk), (page) => page.data)
        const anonymousCards = yield* cards(visitor.client)
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
        // A token that does not authenticate is refused, never read as an anonymous caller (D4). Raw: the list
        // declares no 401, its token being optional.
        const badToken = yield* rawCall("GET", EVENTS, { ...visitor.headers, authorization: "Bearer nope" })
        assert.strictEqual(badToken.status, 401, badToken.text)

        const mine = yield* cards(member.client)
        assert.deepStrictEqual(mine.map((c) => [c.my_rsvp, c.my_waitlist_position]), [
          ["going", null],
          ["interested", null],
          [null, 2],
          [null, null]
        ])
        const detail = yield* member.client.events.get({ path: { id: full.id } }).pipe(expectOk)
        assert.deepInclude(asJson(detail.data), { my_rsvp: null, my_waitlist_position: 2 })
        const wDetail = yield* w!.client.events.get({ path: { id: full.id } }).pipe(expectOk)
        assert.deepInclude(asJson(wDetail.data), { my_rsvp: null, my_waitlist_position: 3 })
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
        const { member, visitor } = yield* community()
        const event = yield* makeEvent(member, { status: "cancelled" })
        const got = yield* visitor.client.events.get({ path: { id: event.id } }).pipe(expectOk)
        assert.deepInclude(asJson(got.data), { id: event.id, status: "cancelled" })
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        for (const id of [foreign.id, 99_999_999]) {
          yield* visitor.client.events.get({ path: { id: id as TestEvent["id"] } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: ids that are not record ids cannot be written by the client.
        for (const id of ["abc", "0", "-1", "1.5"]) {
          const res = yield* rawCall("GET", `${EVENTS}/${id}`, visitor.headers)
          assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
      }))
  })
})
