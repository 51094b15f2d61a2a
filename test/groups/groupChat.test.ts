import { assert, describe, layer } from "@effect/vitest"
import { GroupId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, sortedFieldsOf as fieldsOf } from "../fixtures/bodies.js"
import { type ApiClient, asJson, expectError, expectOk, expectStatus, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { join, makeGroup, setGroupStatus, setMember } from "../fixtures/groups.js"
import { TestApp } from "../fixtures/TestApp.js"

const say = (client: ApiClient, group: { readonly id: number }, body: string) =>
  Effect.map(
    client.groupChat.post({ path: { id: GroupId.make(group.id) }, payload: { body } }).pipe(expectOk),
    (res) => res.data
  )

/** Every page of a chatroom for `client`; answers the bodies, newest first. */
const chatOf = (client: ApiClient, group: { readonly id: number }, perPage = 2) =>
  Effect.gen(function*() {
    const bodies: Array<string> = []
    let cursor: string | undefined
    for (let page = 0; page < 50; page++) {
      const res = yield* client.groupChat.list({
        path: { id: GroupId.make(group.id) },
        urlParams: { per_page: perPage, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
      }).pipe(expectOk)
      bodies.push(...res.data.map((m) => m.body))
      if (res.meta.cursor === undefined) break
      cursor = res.meta.cursor
    }
    return bodies
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("group chatroom", (it) => {
  describe("write and read", () => {
    it.effect("an active member writes (201); members read newest first in cursor pages with senders", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community()
        const group = yield* makeGroup(member)
        yield* join(other, group)
        // Raw: untrimmed text, and the exact body on the wire.
        const res = yield* rawCall("POST", `/api/v2/groups/${group.id}/messages`, member.headers, {
          body: "  Hello all  "
        })
        assert.strictEqual(res.status, 201, res.text)
        const first = (res.body as { data: { id: number; created_at: string } }).data
        assert.deepStrictEqual(res.body, {
          data: {
            id: first.id,
            group_id: group.id,
            sender: { id: member.id, first_name: "Mia", last_name: "Member", avatar_url: null },
            body: "Hello all",
            created_at: first.created_at
          },
          meta: {}
        })
        const second = yield* other.client.groupChat.post({
          path: { id: group.id },
          payload: { body: "Hi Mia" },
          withResponse: true
        })
          .pipe(expectStatus(201))
        yield* say(member.client, group, "Saturday at ten?")

        assert.deepStrictEqual(yield* chatOf(other.client, group), ["Saturday at ten?", "Hi Mia", "Hello all"])
        assert.deepStrictEqual(yield* chatOf(member.client, group, 50), ["Saturday at ten?", "Hi Mia", "Hello all"])
        const page = yield* member.client.groupChat.list({ path: { id: group.id }, urlParams: { per_page: 2 } }).pipe(
          expectOk
        )
        assert.deepStrictEqual(asJson(page.data[1]), asJson(second.data))
        assert.strictEqual(page.meta.has_more, true)

        const events = yield* outboxOf(tenant, "GroupChatroomMessageSent")
        assert.deepStrictEqual(events[0], {
          group_id: group.id,
          group_name: group.name,
          message_id: first.id,
          sender_id: member.id,
          snippet: "Hello all"
        })
        assert.strictEqual(events.length, 3)
      }))

    it.effect("long messages: 5000 code points are the limit; the event carries a snippet of the first 100", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const group = yield* makeGroup(member)
        const long = "🙂".repeat(5000)
        const message = yield* say(member.client, group, long)
        assert.strictEqual(message.body, long)
        const [event] = yield* outboxOf(tenant, "GroupChatroomMessageSent")
        assert.strictEqual(event!["snippet"], `${"🙂".repeat(100)}…`)
        // Raw: bodies the client refuses to send.
        for (const body of [{ body: "   " }, { body: "x".repeat(5001) }, { body: 5 }, {}]) {
          const res = yield* rawCall("POST", `/api/v2/groups/${group.id}/messages`, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), ["body"])
        }
      }))
  })

  describe("who may", () => {
    it.effect("members only: non-members, pending and banned → 403 (public or private); admins read, not write", () =>
      Effect.gen(function*() {
        const { admin, member, members: [pending, banned], other } = yield* community({ members: 2 })
        const open = yield* makeGroup(member)
        const closed = yield* makeGroup(member, { visibility: "private" })
        yield* say(member.client, closed, "Private words")
        yield* join(pending!, closed)
        yield* join(banned!, open)
        yield* setMember(member, open, banned!, { status: "banned" })

        for (const [who, group] of [[other, open], [other, closed], [pending!, closed], [banned!, open]] as const) {
          yield* who.client.groupChat.list({ path: { id: group.id }, urlParams: {} }).pipe(
            expectError(403, "FORBIDDEN")
          )
          yield* who.client.groupChat.post({ path: { id: group.id }, payload: { body: "Let me in" } })
            .pipe(expectError(403, "FORBIDDEN"))
        }
        assert.deepStrictEqual(yield* chatOf(admin.client, closed), ["Private words"])
        yield* admin.client.groupChat.post({ path: { id: closed.id }, payload: { body: "Admin here" } })
          .pipe(expectError(403, "FORBIDDEN"))
        assert.deepStrictEqual(yield* chatOf(member.client, closed), ["Private words"])
      }))

    it.effect("a closed group's chatroom takes no message (409); 401; 404 another community's; feature off → 403", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
        const group = yield* makeGroup(member)
        yield* say(member.client, group, "Before")
        yield* setGroupStatus(group, "archived")
        yield* member.client.groupChat.post({ path: { id: group.id }, payload: { body: "After" } })
          .pipe(expectError(409, "INVALID_STATE"))
        assert.deepStrictEqual(yield* chatOf(member.client, group), ["Before"])

        const path = { id: group.id }
        yield* visitor.client.groupChat.list({ path, urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.groupChat.post({ path, payload: { body: "x" } }).pipe(expectError(401, "AUTH_REQUIRED"))
        const elsewhere = yield* community()
        yield* elsewhere.admin.client.groupChat.list({ path, urlParams: {} }).pipe(expectError(404, "NOT_FOUND"))
        yield* elsewhere.member.client.groupChat.post({ path, payload: { body: "x" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        // Raw: an id the client cannot write.
        const odd = yield* rawCall("GET", "/api/v2/groups/-1/messages", member.headers)
        assert.strictEqual(odd.status, 404, odd.text)
        assert.strictEqual(codeOf(odd.body), "NOT_FOUND")
        const off = yield* community({ features: { groups: false } })
        yield* off.member.client.groupChat.post({ path, payload: { body: "x" } }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
        yield* off.member.client.groupChat.list({ path, urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })
})
