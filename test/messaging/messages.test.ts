import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, fieldOf, sortedFieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import {
  allMessages,
  CONVERSATIONS,
  conversationsOf,
  MESSAGES,
  sendMessage,
  summaryRowsOf,
  unreadBy,
  withUser
} from "../fixtures/messaging.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "../fixtures/users.js"

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

interface WireMessage {
  id: number
  thread_id: number
  created_at: string
}
const messageOf = (body: unknown) => (body as { data: WireMessage }).data

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("messages", (it) => {
  describe("send", () => {
    it.effect("POST sends (201, trimmed); both read it back; summaries, counts and MessageSent are written", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        // Raw: untrimmed text, which the client does not send, and the exact body on the wire.
        const res = yield* rawCall("POST", MESSAGES, member.headers, {
          recipient_id: other.id,
          subject: "  Garden tools  ",
          body: "  Hello Otto,\nmay I borrow your spade on Saturday?  "
        })
        assert.strictEqual(res.status, 201, res.text)
        const sent = messageOf(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: sent.id,
            thread_id: sent.thread_id,
            sender_id: member.id,
            recipient_id: other.id,
            subject: "Garden tools",
            body: "Hello Otto,\nmay I borrow your spade on Saturday?",
            read_at: null,
            created_at: sent.created_at
          },
          meta: {}
        })
        assert.match(sent.created_at, ISO)

        // Both members read the same message in their conversation; the recipient has it unread.
        for (const [who, them] of [[member, other], [other, member]] as const) {
          const thread = yield* allMessages(who.client, them)
          assert.deepStrictEqual(thread.map((m) => [m.id, m.sender_id, m.body]), [
            [sent.id, member.id, "Hello Otto,\nmay I borrow your spade on Saturday?"]
          ])
        }
        const mine = yield* conversationsOf(member.client)
        assert.deepStrictEqual(JSON.parse(JSON.stringify(mine)), [{
          thread_id: sent.thread_id,
          user: { id: other.id, first_name: "Otto", last_name: "Other", avatar_url: null },
          last_message: {
            id: sent.id,
            body: "Hello Otto,\nmay I borrow your spade on Saturday?",
            subject: "Garden tools",
            sender_id: member.id,
            created_at: sent.created_at
          },
          unread_count: 0
        }])
        const theirs = yield* conversationsOf(other.client)
        assert.deepStrictEqual(unreadBy(theirs), [[member.id, 1]])
        assert.deepStrictEqual(theirs[0]!.user, {
          id: UserId.make(member.id),
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        assert.deepStrictEqual(yield* summaryRowsOf(member), [[other.id, 0, sent.id]])
        assert.deepStrictEqual(yield* summaryRowsOf(other), [[member.id, 1, sent.id]])

        assert.deepStrictEqual(yield* outboxOf(tenant, "MessageSent"), [{
          message_id: sent.id,
          thread_id: sent.thread_id,
          sender_id: member.id,
          recipient_id: other.id,
          subject: "Garden tools",
          body: "Hello Otto,\nmay I borrow your spade on Saturday?"
        }])
      }))

    it.effect("a reply uses the same thread; no subject or a blank one is null; counts follow each side", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const first = yield* sendMessage(member, other, "Hi")
        const reply = yield* sendMessage(other, member, "Hello back", "")
        const again = yield* sendMessage(member, other, "And again")
        assert.strictEqual(reply.thread_id, first.thread_id)
        assert.strictEqual(again.thread_id, first.thread_id)
        assert.isNull(first.subject)
        assert.isNull(reply.subject)
        // Raw: a null subject, which the client would send the same way, on the wire.
        const res = yield* rawCall("POST", MESSAGES, other.headers, {
          recipient_id: member.id,
          body: "x",
          subject: null
        })
        assert.strictEqual(res.status, 201, res.text)
        const last = messageOf(res.body)

        assert.deepStrictEqual(unreadBy(yield* conversationsOf(member.client)), [[other.id, 2]])
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[member.id, 2]])
        assert.deepStrictEqual(yield* summaryRowsOf(member), [[other.id, 2, last.id]])
        assert.deepStrictEqual(yield* summaryRowsOf(other), [[member.id, 2, last.id]])
        const thread = yield* allMessages(member.client, other)
        assert.deepStrictEqual(thread.map((m) => m.id), [last.id, again.id, reply.id, first.id])
      }))

    it.effect("bad input → 422 per field, nothing written; 5000 emoji (10000 UTF-16 units) are 5000 characters", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const cases: Array<[unknown, Array<string>]> = [
          [{ recipient_id: other.id, body: "" }, ["body"]],
          [{ recipient_id: other.id, body: " \n\t " }, ["body"]],
          [{ recipient_id: other.id, body: "x".repeat(5001) }, ["body"]],
          [{ recipient_id: other.id, body: "😀".repeat(5001) }, ["body"]],
          [{ recipient_id: other.id, body: "ok", subject: "s".repeat(201) }, ["subject"]],
          [{ recipient_id: other.id, body: 7 }, ["body"]],
          [{ recipient_id: other.id }, ["body"]],
          [{ body: "hello" }, ["recipient_id"]],
          [{ recipient_id: "x", body: "hello" }, ["recipient_id"]],
          [{ recipient_id: 0, body: "hello" }, ["recipient_id"]],
          [{ recipient_id: 1.5, body: "" }, ["body", "recipient_id"]]
        ]
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", MESSAGES, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(sortedFieldsOf(res.body), fields, JSON.stringify(body).slice(0, 80))
        }
        // To oneself: a rule of the service, on the same field.
        const self = yield* member.client.messages.send({ payload: { recipient_id: member.id, body: "me" } }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(self.fields, ["recipient_id"])
        assert.deepStrictEqual(yield* outboxOf(tenant, "MessageSent"), [])
        assert.deepStrictEqual(yield* conversationsOf(member.client), [])

        // The limits themselves pass: 5000 code points, whatever their UTF-16 length; a 200-character subject.
        const emoji = "😀".repeat(5000)
        assert.strictEqual(emoji.length, 10_000)
        const long = yield* sendMessage(member, other, emoji, "s".repeat(200))
        assert.strictEqual(long.body, emoji)
        const plain = yield* sendMessage(member, other, "y".repeat(5000))
        assert.strictEqual(plain.body.length, 5000)
        const read = yield* allMessages(other.client, member)
        assert.deepStrictEqual(read.map((m) => m.id), [plain.id, long.id])
        assert.strictEqual([...read[1]!.body].length, 5000)
        assert.strictEqual((yield* outboxOf(tenant, "MessageSent")).length, 2)
      }))

    it.effect("recipient: unknown or another community's → the same 404 on recipient_id; inactive members → 422", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const answers: Array<string> = []
        for (const id of [elsewhere.member.id, 999_999_999]) {
          const f = yield* member.client.messages.send({ payload: { recipient_id: id, body: "Hi" } }).pipe(
            expectError(404, "NOT_FOUND")
          )
          assert.deepStrictEqual(f.fields, ["recipient_id"])
          answers.push(f.message)
        }
        // Another community's member and nobody at all get the very same answer.
        assert.strictEqual(answers[0], answers[1])
        for (const status of ["suspended", "banned", "pending"] as const) {
          const inactive = yield* makeUser(tenant, { status })
          const f = yield* member.client.messages.send({ payload: { recipient_id: inactive.id, body: "Hi" } }).pipe(
            expectError(422, "VALIDATION_ERROR")
          )
          assert.deepStrictEqual(f.fields, ["recipient_id"], status)
        }
        assert.deepStrictEqual(yield* outboxOf(tenant, "MessageSent"), [])
        assert.deepStrictEqual(yield* conversationsOf(elsewhere.member.client), [])
      }))

    it.effect("anonymous → 401 and a visiting super-admin → 403 on every route; feature off → 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { member, other, tenant, visitor } = yield* community({ signIn: "token" })
        yield* sendMessage(member, other, "Hi")
        const payload = { recipient_id: other.id, body: "Hi" }
        // Every route of the group refuses `client` with `status` and `code`.
        const refusedEverywhere = (client: typeof visitor.client, status: number, code: string) =>
          Effect.all([
            client.messages.send({ payload }).pipe(expectError(status, code)),
            client.messages.conversations({ urlParams: {} }).pipe(expectError(status, code)),
            client.messages.thread({ ...withUser(other), urlParams: {} }).pipe(expectError(status, code)),
            client.messages.read(withUser(other)).pipe(expectError(status, code))
          ])
        yield* refusedEverywhere(visitor.client, 401, "AUTH_REQUIRED")
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* refusedEverywhere(visiting, 403, "FORBIDDEN")

        const off = yield* community({ features: { messages: false }, signIn: "token" })
        yield* refusedEverywhere(off.member.client, 403, "FEATURE_DISABLED")
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "MessageSent"), [])
        // Nothing of the refused calls changed the one conversation.
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[member.id, 1]])
        assert.strictEqual((yield* outboxOf(tenant, "MessageSent")).length, 1)
      }))
  })

  describe("thread", () => {
    it.effect("only the two members see a thread; a member with none → empty; another community's → 404", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const toOther = yield* sendMessage(member, other, "For Otto only")
        const toAdmin = yield* sendMessage(member, admin, "For Ada only")
        assert.notStrictEqual(toOther.thread_id, toAdmin.thread_id)

        assert.deepStrictEqual((yield* allMessages(other.client, member)).map((m) => m.id), [toOther.id])
        assert.deepStrictEqual((yield* allMessages(admin.client, member)).map((m) => m.id), [toAdmin.id])
        // Admin and Otto never wrote to each other: empty, whatever the member's threads hold.
        const none = yield* admin.client.messages.thread({ ...withUser(other), urlParams: {} }).pipe(expectOk)
        assert.deepStrictEqual(none, { data: [], meta: { per_page: 50, has_more: false } })
        assert.deepStrictEqual(unreadBy(yield* conversationsOf(other.client)), [[member.id, 1]])

        // Another community cannot name them: its members and ids are not found, nor are ours from there.
        for (const id of [elsewhere.member.id, 999_999_999]) {
          yield* member.client.messages.thread({ path: { userId: UserId.make(id) }, urlParams: {} }).pipe(
            expectError(404, "NOT_FOUND")
          )
          yield* member.client.messages.read({ path: { userId: UserId.make(id) } }).pipe(expectError(404, "NOT_FOUND"))
        }
        yield* elsewhere.member.client.messages.thread({ ...withUser(member), urlParams: {} }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* elsewhere.member.client.messages.read(withUser(other)).pipe(expectError(404, "NOT_FOUND"))
        // Raw: ids that are not record ids cannot be written by the client.
        for (const path of [`${CONVERSATIONS}/abc`, `${CONVERSATIONS}/0`, `${CONVERSATIONS}/-4/read`]) {
          const res = yield* rawCall(path.endsWith("/read") ? "POST" : "GET", path, member.headers)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        // A cursor that does not decode, and a page size out of range.
        for (const query of ["cursor=abc!", "cursor=bm9wZQ", "cursor=LTE", "per_page=0", "per_page=101"]) {
          const res = yield* rawCall("GET", `${CONVERSATIONS}/${other.id}?${query}`, member.headers)
          assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
          assert.strictEqual(fieldOf(res.body), query.split("=")[0])
        }
      }))

    it.effect("a thread stays readable after the other member is suspended; writing to them is refused", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community({ signIn: "token" })
        const later = yield* makeUser(tenant, { firstName: "Sam" })
        const first = yield* sendMessage(member, later, "Before")
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE users SET status = 'suspended' WHERE id = ${later.id}`
        ).pipe(Effect.orDie)
        assert.deepStrictEqual((yield* allMessages(member.client, later)).map((m) => m.id), [first.id])
        yield* member.client.messages.send({ payload: { recipient_id: later.id, body: "After" } }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual((yield* conversationsOf(member.client)).map((c) => c.user.first_name), ["Sam"])
      }))
  })
})
