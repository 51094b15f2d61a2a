import { assert, describe, layer } from "@effect/vitest"
import { RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { expectOk, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import {
  allConversations,
  allMessages,
  conversationsOf,
  sendMessage,
  summaryRowsOf,
  unreadBy,
  unreadInTable,
  withUser
} from "../fixtures/messaging.js"
import { TestApp } from "../fixtures/TestApp.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("conversations", (it) => {
  describe("list", () => {
    it.effect("most recent activity first, across cursor pages; a new message moves its conversation to the top", () =>
      Effect.gen(function*() {
        const { member, members } = yield* community({ signIn: "token", members: 5 })
        // The member writes to five members in turn, then the second one writes back.
        const sent = []
        for (const [i, to] of members.entries()) sent.push(yield* sendMessage(member, to, `Hello ${i}`))
        const reply = yield* sendMessage(members[1]!, member, "Hi back")
        const expected = [members[1]!, members[4]!, members[3]!, members[2]!, members[0]!].map((m) => m.id)

        const whole = yield* allConversations(member.client, 2)
        assert.strictEqual(whole.pages, 3)
        assert.deepStrictEqual(whole.items.map((c) => c.user.id), expected)
        assert.deepStrictEqual(whole.items.map((c) => c.last_message.id), [
          reply.id,
          sent[4]!.id,
          sent[3]!.id,
          sent[2]!.id,
          sent[0]!.id
        ])
        assert.deepStrictEqual(whole.items[0]!.last_message.sender_id, members[1]!.id)
        assert.deepStrictEqual(whole.items[0]!.last_message.body, "Hi back")
        assert.deepStrictEqual(whole.items.map((c) => c.unread_count), [1, 0, 0, 0, 0])
        assert.deepStrictEqual((yield* allConversations(member.client, 100)).items, whole.items)

        // Page by page: the meta says when more follow, and the last page has no cursor.
        const first = yield* member.client.messages.conversations({ urlParams: { per_page: 2 } }).pipe(expectOk)
        assert.deepStrictEqual(first.meta.has_more, true)
        assert.deepStrictEqual(first.meta.per_page, 2)
        const cursor = first.meta.cursor!
        const second = yield* member.client.messages.conversations({
          urlParams: { per_page: 3, cursor: pageCursor(RecordId, cursor) }
        }).pipe(expectOk)
        assert.deepStrictEqual(second.data.map((c) => c.user.id), expected.slice(2))
        assert.deepStrictEqual(second.meta, { per_page: 3, has_more: false })

        // Default page size 20; a member with no conversation has an empty list.
        const plain = yield* member.client.messages.conversations({ urlParams: {} }).pipe(expectOk)
        assert.deepStrictEqual(plain.meta, { per_page: 20, has_more: false })
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(members[0]!.client)), [[member.id, 1]])
        const quiet = yield* community({ signIn: "token" })
        assert.deepStrictEqual(yield* conversationsOf(quiet.member.client), [])
      }))
  })

  describe("thread", () => {
    it.effect("newest first in cursor pages; the walk sees every message once and ends without a cursor", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const ids: Array<number> = []
        for (let i = 0; i < 7; i++) {
          const [from, to] = i % 3 === 2 ? [other, member] : [member, other]
          ids.push((yield* sendMessage(from, to, `Message ${i}`)).id)
        }
        const newestFirst = [...ids].reverse()
        const page1 = yield* member.client.messages.thread({ ...withUser(other), urlParams: { per_page: 3 } }).pipe(
          expectOk
        )
        assert.deepStrictEqual(page1.data.map((m) => m.id), newestFirst.slice(0, 3))
        assert.isTrue(page1.meta.has_more)
        const page2 = yield* member.client.messages.thread({
          ...withUser(other),
          urlParams: { per_page: 3, cursor: pageCursor(RecordId, page1.meta.cursor!) }
        }).pipe(expectOk)
        assert.deepStrictEqual(page2.data.map((m) => m.id), newestFirst.slice(3, 6))
        const page3 = yield* member.client.messages.thread({
          ...withUser(other),
          urlParams: { per_page: 3, cursor: pageCursor(RecordId, page2.meta.cursor!) }
        }).pipe(expectOk)
        assert.deepStrictEqual(page3.data.map((m) => m.id), newestFirst.slice(6))
        assert.deepStrictEqual(page3.meta, { per_page: 3, has_more: false })
        // Both members see the same thread, in the same order.
        assert.deepStrictEqual((yield* allMessages(other.client, member, 2)).map((m) => m.id), newestFirst)
        assert.deepStrictEqual(
          (yield* allMessages(member.client, other)).map((m) => m.body),
          newestFirst.map((id) => `Message ${ids.indexOf(id)}`)
        )
      }))
  })

  describe("read", () => {
    it.effect("marks what the other member sent read (read_at, count 0); own messages stay; again → 0", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        yield* sendMessage(member, other, "One")
        yield* sendMessage(member, other, "Two")
        const mine = yield* sendMessage(other, member, "Three")
        yield* sendMessage(admin, other, "From Ada")
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[admin.id, 1], [member.id, 2]])
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(member.client)), [[other.id, 1]])

        const marked = yield* other.client.messages.read(withUser(member)).pipe(expectOk)
        assert.deepStrictEqual(marked, { data: { marked_read: 2 }, meta: {} })
        // Otto's conversation with Mia is read; the one with Ada is not; Mia still has Otto's reply unread.
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[admin.id, 1], [member.id, 0]])
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(member.client)), [[other.id, 1]])
        assert.strictEqual(yield* unreadInTable(member, other), 0)
        assert.strictEqual(yield* unreadInTable(other, member), 1)
        const thread = yield* allMessages(other.client, member)
        for (const m of thread) {
          if (m.id === mine.id) assert.isNull(m.read_at, "Otto's own message is Mia's to read")
          else assert.isNotNull(m.read_at, `message ${m.id}`)
        }

        const again = yield* other.client.messages.read(withUser(member)).pipe(expectOk)
        assert.deepStrictEqual(again.data, { marked_read: 0 })
        // A member the caller never wrote with: nothing to mark.
        const none = yield* admin.client.messages.read(withUser(member)).pipe(expectOk)
        assert.deepStrictEqual(none.data, { marked_read: 0 })
        // New messages count from zero again.
        yield* sendMessage(member, other, "Four")
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[member.id, 1], [admin.id, 1]])
        const last = yield* member.client.messages.read(withUser(other)).pipe(expectOk)
        assert.deepStrictEqual(last.data, { marked_read: 1 })
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(member.client)), [[other.id, 0]])
      }))

    it.effect("two members writing to each other at once, while reading: no error, no count lost", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const each = 15
        const burst = (from: typeof member, to: typeof member) =>
          Effect.forEach(Array.from({ length: each }, (_, i) => i), (i) => sendMessage(from, to, `${from.id}:${i}`), {
            concurrency: 5
          })
        const [a, b] = yield* Effect.all([burst(member, other), burst(other, member)], { concurrency: 2 })
        const thread = yield* allMessages(member.client, other)
        assert.strictEqual(thread.length, 2 * each)
        assert.strictEqual(new Set([...a, ...b].map((m) => m.thread_id)).size, 1)
        const lastId = Math.max(...thread.map((m) => m.id))
        assert.deepStrictEqual(yield* summaryRowsOf(member), [[other.id, each, lastId]])
        assert.deepStrictEqual(yield* summaryRowsOf(other), [[member.id, each, lastId]])

        // Reads racing with sends: whatever the interleaving, the count equals the unread messages in the table.
        yield* Effect.all([
          burst(member, other),
          Effect.forEach(Array.from({ length: 6 }), () => other.client.messages.read(withUser(member)).pipe(expectOk), {
            concurrency: 2
          })
        ], { concurrency: 2 })
        const rows = yield* summaryRowsOf(other)
        assert.strictEqual(rows.length, 1)
        const count = rows[0]![1]
        assert.strictEqual(count, yield* unreadInTable(member, other))
        const total = yield* other.client.messages.read(withUser(member)).pipe(expectOk)
        assert.strictEqual(total.data.marked_read, count)
        assert.strictEqual(yield* unreadInTable(member, other), 0)
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[member.id, 0]])
      }))
  })
})
