import { assert, describe, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf } from "../fixtures/events.js"
import { sendMessage } from "../fixtures/messaging.js"
import { bellOf, dispatchSettled, queuedMails, waitForBells } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("message notifications", (it) => {
  describe("new_message", () => {
    it.effect("the recipient's bell (actor, link to the conversation, the start of the text) and instant e-mail", () =>
      Effect.gen(function*() {
        // The community's digest frequency is daily: a new message is still e-mailed at once (always instant).
        const { member, other } = yield* community({
          signIn: "token",
          settings: { "notifications.default_frequency": "daily" }
        })
        const sent = yield* sendMessage(member, other, "Could you help me move a sofa\n on Saturday?", "Sofa")
        const [bell, ...more] = yield* bellOf(other, "new_message")
        assert.deepStrictEqual(more, [])
        assert.deepInclude(bell, {
          type: "new_message",
          category: "messages",
          title: "New message from Mia Member",
          body: "Could you help me move a sofa on Saturday?",
          link: `/messages/${member.id}`,
          is_read: false
        })
        assert.deepStrictEqual(bell!.actor, {
          id: UserId.make(member.id),
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        const mails = (yield* queuedMails(other)).filter((m) => m.activity_type === "new_message")
        assert.deepStrictEqual(mails.map((m) => [m.subject, m.frequency]), [["New message from Mia Member", "instant"]])

        // The sender hears nothing of their own message.
        yield* dispatchSettled
        assert.deepStrictEqual((yield* member.client.notifications.list({ urlParams: {} })).data, [])
        assert.deepStrictEqual((yield* queuedMails(member)).filter((m) => m.activity_type === "new_message"), [])
        assert.strictEqual((yield* outboxOf(member.tenant, "MessageSent"))[0]!["message_id"], sent.id)
      }))

    it.effect("a long message shows its first 140 characters (code points) and an ellipsis", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const body = "🌱".repeat(139) + "ab" + "c".repeat(500)
        yield* sendMessage(member, other, body)
        const [bell] = yield* bellOf(other, "new_message")
        assert.strictEqual(bell!.body, `${"🌱".repeat(139)}a…`)
        assert.strictEqual([...bell!.body].length, 141)
      }))

    it.effect("a recipient who muted the sender gets no bell and no e-mail; others still do; unmuted it rings", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        yield* other.client.notificationSettings.mute({ path: { id: UserId.make(member.id) } }).pipe(expectOk)
        yield* sendMessage(member, other, "You will not hear of this")
        // Ada is not muted: her message rings, so the dispatch has been through Mia's too.
        yield* sendMessage(admin, other, "But of this")
        const bells = yield* bellOf(other, "new_message")
        assert.deepStrictEqual(bells.map((b) => [b.actor?.id as number, b.link]), [[admin.id, `/messages/${admin.id}`]])
        yield* dispatchSettled
        const mails = (yield* queuedMails(other)).filter((m) => m.activity_type === "new_message")
        assert.deepStrictEqual(mails.map((m) => m.subject), ["New message from Ada Admin"])
        // The message itself arrived: mute silences notifications, not messages.
        const list = (yield* other.client.messages.conversations({ urlParams: {} }).pipe(expectOk)).data
        assert.deepStrictEqual(list.map((c) => [c.user.id, c.unread_count]), [[admin.id, 1], [member.id, 1]])

        yield* other.client.notificationSettings.unmute({ path: { id: UserId.make(member.id) } }).pipe(expectOk)
        yield* sendMessage(member, other, "Now you hear me")
        const after = yield* waitForBells(other, (items) => items.some((b) => b.actor?.id === member.id))
        assert.deepStrictEqual(
          after.filter((b) => b.type === "new_message").map((b) => [b.actor?.id as number, b.body]),
          [[member.id, "Now you hear me"], [admin.id, "But of this"]]
        )
      }))
  })
})
