import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Connection, ConnectionId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, fieldOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk, expectStatus, pageCursor } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { bellOf, dispatchSettled } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "../fixtures/users.js"

const CONNECTIONS = "/api/v2/connections"

const idPath = (id: number) => ({ path: { id: ConnectionId.make(id) } })

/** `from` asks `to` to connect; answers the connection as the requester sees it. */
const ask = (from: Actor, to: { readonly id: number }) =>
  Effect.map(
    from.client.connections.request({ payload: { user_id: to.id }, withResponse: true }).pipe(expectStatus(201)),
    (res) => res.data
  )

/** The first page (100) of `client`'s connections of a status (accepted unless given). */
const listed = (client: ApiClient, status?: "pending" | "accepted") =>
  Effect.map(
    client.connections.list({ urlParams: { per_page: 100, ...(status === undefined ? {} : { status }) } }).pipe(
      expectOk
    ),
    (page) => page.data
  )

/** `[other member id, direction, status]` of each listed connection, in list order. */
const shapes = (items: ReadonlyArray<Connection>) => items.map((c) => [c.user.id, c.direction, c.status])

const rowCount = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM connections
    WHERE id = ${id}`).pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("connections", (it) => {
  describe("request", () => {
    it.effect("POST asks (201 pending, outgoing); the target sees it incoming; ConnectionRequested; target's bell", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        // Raw: the exact body on the wire.
        const res = yield* rawCall("POST", CONNECTIONS, member.headers, { user_id: other.id })
        assert.strictEqual(res.status, 201, res.text)
        const id = (res.body as { data: { id: number } }).data.id
        const created = (res.body as { data: { created_at: string } }).data.created_at
        assert.deepStrictEqual(res.body, {
          data: {
            id,
            status: "pending",
            direction: "outgoing",
            user: { id: other.id, first_name: "Otto", last_name: "Other", avatar_url: null },
            requester_id: member.id,
            target_id: other.id,
            created_at: created,
            accepted_at: null
          },
          meta: {}
        })
        assert.match(created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)

        // Read back: pending for both, in their own direction; nobody is connected yet.
        assert.deepStrictEqual(shapes(yield* listed(member.client, "pending")), [[other.id, "outgoing", "pending"]])
        const incoming = yield* listed(other.client, "pending")
        assert.deepStrictEqual(shapes(incoming), [[member.id, "incoming", "pending"]])
        assert.deepStrictEqual<object>(incoming[0]!.user, {
          id: member.id,
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        assert.deepStrictEqual(yield* listed(member.client), [])
        assert.deepStrictEqual(yield* listed(other.client, "accepted"), [])

        assert.deepStrictEqual(yield* outboxOf(tenant, "ConnectionRequested"), [
          { connection_id: id, requester_id: member.id, target_id: other.id }
        ])
        const [bell] = yield* bellOf(other, "connection_request")
        assert.deepInclude(bell, {
          category: "connections",
          title: "Mia Member wants to connect",
          link: `/members/${member.id}`
        })
        assert.strictEqual(bell!.actor?.id, member.id)
        // The requester hears nothing of their own request.
        yield* dispatchSettled
        assert.deepStrictEqual((yield* member.client.notifications.list({ urlParams: {} })).data, [])
      }))

    it.effect("409 ALREADY_EXISTS while pending or connected, whichever way; asking again after a decline works", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const first = yield* ask(member, other)
        for (const [from, to] of [[member, other], [other, member]] as const) {
          const f = yield* from.client.connections.request({ payload: { user_id: to.id } }).pipe(
            expectError(409, "ALREADY_EXISTS")
          )
          assert.deepStrictEqual(f.fields, ["user_id"])
        }
        // Declined: the row is gone and the requester may ask again (and so may the other side).
        const declined = yield* other.client.connections.decline(idPath(first.id)).pipe(expectOk)
        assert.deepStrictEqual(declined, { data: { id: first.id, declined: true }, meta: {} })
        assert.strictEqual(yield* rowCount(first.id), 0)
        assert.deepStrictEqual(yield* listed(other.client, "pending"), [])
        assert.deepStrictEqual(yield* listed(member.client, "pending"), [])

        const again = yield* ask(member, other)
        assert.notStrictEqual(again.id, first.id)
        yield* other.client.connections.accept(idPath(again.id)).pipe(expectOk)
        for (const [from, to] of [[member, other], [other, member]] as const) {
          yield* from.client.connections.request({ payload: { user_id: to.id } }).pipe(
            expectError(409, "ALREADY_EXISTS")
          )
        }
        assert.strictEqual((yield* outboxOf(tenant, "ConnectionRequested")).length, 2)
      }))

    it.effect("oneself → 422; unknown, other tenant's → 404; a suspended member → 422; bad body → 422", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const self = yield* member.client.connections.request({ payload: { user_id: member.id } }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(self.fields, ["user_id"])
        for (const id of [elsewhere.member.id, 999_999_999]) {
          const f = yield* member.client.connections.request({ payload: { user_id: id } }).pipe(
            expectError(404, "NOT_FOUND")
          )
          assert.deepStrictEqual(f.fields, ["user_id"])
        }
        const suspended = yield* makeUser(tenant, { status: "suspended" })
        const f = yield* member.client.connections.request({ payload: { user_id: suspended.id } }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(f.fields, ["user_id"])
        // Raw: bodies the client's schemas would refuse to send.
        for (const body of [{}, { user_id: "x" }, { user_id: 0 }, { user_id: 1.5 }]) {
          const res = yield* rawCall("POST", CONNECTIONS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(fieldOf(res.body), "user_id")
        }
        assert.deepStrictEqual(yield* outboxOf(tenant, "ConnectionRequested"), [])
      }))

    it.effect("anonymous → 401; a visiting super-admin → 403; feature off → 403 FEATURE_DISABLED on every route", () =>
      Effect.gen(function*() {
        const { member, other, tenant, visitor } = yield* community({ signIn: "token" })
        const pending = yield* ask(member, other)
        yield* visitor.client.connections.request({ payload: { user_id: other.id } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
        yield* visitor.client.connections.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.connections.accept(idPath(pending.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.connections.decline(idPath(pending.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.connections.delete(idPath(pending.id)).pipe(expectError(401, "AUTH_REQUIRED"))

        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.connections.request({ payload: { user_id: other.id } }).pipe(expectError(403, "FORBIDDEN"))
        yield* visiting.connections.list({ urlParams: {} }).pipe(expectError(403, "FORBIDDEN"))

        const off = yield* community({ features: { connections: false }, signIn: "token" })
        const client = off.member.client.connections
        yield* client.request({ payload: { user_id: off.other.id } }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* client.list({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* client.accept(idPath(pending.id)).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* client.decline(idPath(pending.id)).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* client.delete(idPath(pending.id)).pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "ConnectionRequested"), [])
      }))
  })

  describe("accept and decline", () => {
    it.effect("the target accepts (200): both see it accepted; ConnectionAccepted; the requester's bell", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const request = yield* ask(member, other)
        const accepted = (yield* other.client.connections.accept(idPath(request.id)).pipe(expectOk)).data
        assert.strictEqual(accepted.id, request.id)
        assert.strictEqual(accepted.status, "accepted")
        assert.strictEqual(accepted.direction, "incoming")
        assert.strictEqual(accepted.user.id, member.id)
        assert.isNotNull(accepted.accepted_at)

        assert.deepStrictEqual(shapes(yield* listed(member.client)), [[other.id, "outgoing", "accepted"]])
        assert.deepStrictEqual(shapes(yield* listed(other.client, "accepted")), [[member.id, "incoming", "accepted"]])
        assert.deepStrictEqual(yield* listed(member.client, "pending"), [])
        assert.deepStrictEqual(yield* listed(other.client, "pending"), [])

        assert.deepStrictEqual(yield* outboxOf(tenant, "ConnectionAccepted"), [
          { connection_id: request.id, requester_id: member.id, target_id: other.id }
        ])
        const [bell] = yield* bellOf(member, "connection_accepted")
        assert.deepInclude(bell, {
          category: "connections",
          title: "Otto Other accepted your request",
          link: `/members/${other.id}`
        })
        assert.strictEqual(bell!.actor?.id, other.id)
      }))

    it.effect("the requester or a third member → 403; other tenant's or unknown id → 404; not pending → 409", () =>
      Effect.gen(function*() {
        const { member, other, admin } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const request = yield* ask(member, other)
        for (const who of [member, admin]) {
          yield* who.client.connections.accept(idPath(request.id)).pipe(expectError(403, "FORBIDDEN"))
          yield* who.client.connections.decline(idPath(request.id)).pipe(expectError(403, "FORBIDDEN"))
        }
        for (const id of [request.id, 999_999_999]) {
          yield* elsewhere.other.client.connections.accept(idPath(id)).pipe(expectError(404, "NOT_FOUND"))
          yield* elsewhere.other.client.connections.decline(idPath(id)).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: ids that are not record ids cannot be written by the client.
        for (const path of [`${CONNECTIONS}/abc/accept`, `${CONNECTIONS}/0/decline`]) {
          const res = yield* rawCall("POST", path, other.headers)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        // Still pending after all that.
        assert.deepStrictEqual(shapes(yield* listed(other.client, "pending")), [[member.id, "incoming", "pending"]])

        yield* other.client.connections.accept(idPath(request.id)).pipe(expectOk)
        yield* other.client.connections.accept(idPath(request.id)).pipe(expectError(409, "INVALID_STATE"))
        yield* other.client.connections.decline(idPath(request.id)).pipe(expectError(409, "INVALID_STATE"))
        assert.deepStrictEqual(shapes(yield* listed(other.client)), [[member.id, "incoming", "accepted"]])
      }))

    it.effect("declining tells nobody: no event, no bell for the requester", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const request = yield* ask(member, other)
        yield* other.client.connections.decline(idPath(request.id)).pipe(expectOk)
        yield* dispatchSettled
        assert.deepStrictEqual((yield* member.client.notifications.list({ urlParams: {} })).data, [])
        assert.deepStrictEqual(yield* outboxOf(tenant, "ConnectionAccepted"), [])
      }))
  })

  describe("delete", () => {
    it.effect("either member withdraws a request or ends a connection (200); a third member → 403; 404; 401", () =>
      Effect.gen(function*() {
        const { member, other, admin, visitor } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })

        // The requester withdraws a pending request.
        const pending = yield* ask(member, other)
        yield* admin.client.connections.delete(idPath(pending.id)).pipe(expectError(403, "FORBIDDEN"))
        yield* elsewhere.member.client.connections.delete(idPath(pending.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* visitor.client.connections.delete(idPath(pending.id)).pipe(expectError(401, "AUTH_REQUIRED"))
        const withdrawn = yield* member.client.connections.delete(idPath(pending.id)).pipe(expectOk)
        assert.deepStrictEqual(withdrawn, { data: { id: pending.id, deleted: true }, meta: {} })
        assert.deepStrictEqual(yield* listed(other.client, "pending"), [])
        yield* member.client.connections.delete(idPath(pending.id)).pipe(expectError(404, "NOT_FOUND"))

        // The target ends an accepted connection; both lists are empty after.
        const request = yield* ask(member, other)
        yield* other.client.connections.accept(idPath(request.id)).pipe(expectOk)
        yield* admin.client.connections.delete(idPath(request.id)).pipe(expectError(403, "FORBIDDEN"))
        const ended = yield* other.client.connections.delete(idPath(request.id)).pipe(expectOk)
        assert.deepStrictEqual(ended.data, { id: request.id, deleted: true })
        assert.deepStrictEqual(yield* listed(member.client), [])
        assert.deepStrictEqual(yield* listed(other.client), [])
        assert.strictEqual(yield* rowCount(request.id), 0)
        // And they may connect again, the other way round this time.
        yield* ask(other, member)
      }))
  })

  describe("list", () => {
    it.effect("newest first across both directions, paged by cursor with no gaps or repeats", () =>
      Effect.gen(function*() {
        const { member, members } = yield* community({ signIn: "token", members: 5 })
        const [a, b, c, d, e] = members as [Actor, Actor, Actor, Actor, Actor]
        // Alternate directions: member asks a, c, e; b and d ask member.
        const made: Array<number> = []
        for (const [from, to] of [[member, a], [b, member], [member, c], [d, member], [member, e]] as const) {
          made.push((yield* ask(from, to)).id)
        }
        const expected = [
          [e.id, "outgoing"],
          [d.id, "incoming"],
          [c.id, "outgoing"],
          [b.id, "incoming"],
          [a.id, "outgoing"]
        ]

        const seen: Array<Connection> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* member.client.connections.list({
            urlParams: {
              status: "pending",
              per_page: 2,
              ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
            }
          }).pipe(expectOk)
          assert.isAtMost(page.data.length, 2)
          assert.strictEqual(page.meta.per_page, 2)
          seen.push(...page.data)
          cursor = page.meta.cursor
          assert.strictEqual(page.meta.has_more, cursor !== undefined)
          pages++
        } while (cursor !== undefined)
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(seen.map((s) => [s.user.id, s.direction]), expected)
        assert.deepStrictEqual(seen.map((s) => s.id), [...made].reverse())

        // Accepting two moves them from pending to accepted for both sides.
        yield* b.client.connections.accept(idPath(made[0]!)).pipe(expectError(403, "FORBIDDEN"))
        yield* a.client.connections.accept(idPath(made[0]!)).pipe(expectOk)
        yield* member.client.connections.accept(idPath(made[1]!)).pipe(expectOk)
        assert.deepStrictEqual(shapes(yield* listed(member.client)), [
          [b.id, "incoming", "accepted"],
          [a.id, "outgoing", "accepted"]
        ])
        assert.strictEqual((yield* listed(member.client, "pending")).length, 3)
        assert.deepStrictEqual(shapes(yield* listed(a.client)), [[member.id, "incoming", "accepted"]])
      }))

    it.effect("an unknown status or a bad cursor → 422 on that field; 401 without a token", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community({ signIn: "token" })
        // Raw: query values the client's schemas would refuse to send.
        for (
          const [query, field] of [["status=declined", "status"], ["status=", "status"], [
            "cursor=not-a-cursor!",
            "cursor"
          ]]
        ) {
          const res = yield* rawCall("GET", `${CONNECTIONS}?${query}`, member.headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.strictEqual(fieldOf(res.body), field)
        }
        yield* visitor.client.connections.list({ urlParams: { status: "pending" } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
      }))

    it.effect("a connection of another community never shows", () =>
      Effect.gen(function*() {
        const one = yield* community({ signIn: "token" })
        const two = yield* community({ signIn: "token" })
        yield* ask(one.member, one.other)
        const stranger = yield* makeActor(two.tenant, {}, "token")
        yield* ask(stranger, two.member)
        assert.deepStrictEqual(shapes(yield* listed(two.member.client, "pending")), [[
          stranger.id,
          "incoming",
          "pending"
        ]])
        assert.deepStrictEqual(shapes(yield* listed(one.member.client, "pending")), [[
          one.other.id,
          "outgoing",
          "pending"
        ]])
      }))
  })
})
