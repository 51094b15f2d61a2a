import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant, UserId } from "@timebank/domain"
import { dispatchBatch, dispatchDependencies, Dispatcher, TenantDirectory } from "@timebank/server"
import { Effect, Layer, Option } from "effect"
import { asJson, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { community, makeActor, visitor } from "../fixtures/community.js"
import { outboxTransfers, pay } from "../fixtures/ledger.js"
import { bellOf, dispatchSettled, queuedMails, waitForBells } from "../fixtures/notifications.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

/** A community whose funding grants have been dispatched already (their bells and e-mails are in). */
const funded = (settings: Record<string, unknown> = {}) =>
  Effect.tap(
    community({ settings: { starting_balance: 0, ...settings }, fund: { member: 20, other: 20 } }),
    () => dispatchSettled
  )

type Members = Effect.Effect.Success<ReturnType<typeof funded>>

/** `member` pays `other` once; the dispatch has handled it when this returns. */
const payOther = (c: Members, amount = 1) =>
  Effect.gen(function*() {
    const tx = yield* pay(c.member.client, { recipient_id: c.other.id, amount }).pipe(expectStatus(201))
    yield* dispatchSettled
    return tx.data
  })

const bellsAbout = (c: Members, link: string) =>
  Effect.map(
    c.other.client.notifications.list({ urlParams: { per_page: 100 } }),
    (page) => page.data.filter((b) => b.link === link)
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("notification dispatch", (it) => {
  describe("batches", () => {
    it.effect("a publisher batch of two communities' transfers: each gets its bells and e-mails; again, nothing", () =>
      Effect.gen(function*() {
        const [c, d] = [yield* funded(), yield* funded()]
        const batch = outboxTransfers([{ where: c }, { where: d }, { where: c }])
        const linkOf = (n: number) => `/wallet/transactions/${batch[n]!.meta.id}`
        const dispatch = dispatchBatch(batch).pipe(Effect.provide(Layer.mergeAll(...dispatchDependencies)))
        yield* dispatch
        // The funding grants rang too: only the batch's bells count here.
        const ours = new Set(batch.map((_, n) => linkOf(n)))
        const links = (who: Members["other"]) =>
          Effect.map(
            who.client.notifications.list({ urlParams: { per_page: 100 } }),
            (page) =>
              page.data.filter((b) => b.type === "transaction_received" && ours.has(b.link ?? ""))
                .map((b) => b.link).sort()
          )
        assert.deepStrictEqual(yield* links(c.other), [linkOf(0), linkOf(2)])
        assert.deepStrictEqual(yield* links(d.other), [linkOf(1)])
        // The funding grants queued no transaction_sent (the treasury sent them).
        const sent = (who: Members["member"]) =>
          Effect.map(queuedMails(who), (mails) => mails.filter((m) => m.activity_type === "transaction_sent").length)
        assert.deepStrictEqual([yield* sent(c.member), yield* sent(d.member)], [2, 1])

        // Handed over again (a crash before the cursor was saved): no second bell, no second e-mail.
        yield* dispatch
        assert.lengthOf(yield* links(c.other), 2)
        assert.lengthOf(yield* links(d.other), 1)
        assert.deepStrictEqual([yield* sent(c.member), yield* sent(d.member)], [2, 1])
      }))

    it.effect("a batch is written in each recipient's language: German and Spanish readers, English senders", () =>
      Effect.gen(function*() {
        const [c, d] = [yield* funded(), yield* funded()]
        yield* expectOk(c.other.client.users.updateMe({ payload: { preferred_language: "de" } }))
        yield* expectOk(d.other.client.users.updateMe({ payload: { preferred_language: "es" } }))
        const batch = outboxTransfers([{ where: c }, { where: d }])
        yield* dispatchBatch(batch).pipe(Effect.provide(Layer.mergeAll(...dispatchDependencies)))
        const titleOf = (who: Members["other"], n: number) =>
          Effect.map(
            who.client.notifications.list({ urlParams: { per_page: 100 } }),
            (page) => page.data.find((b) => b.link === `/wallet/transactions/${batch[n]!.meta.id}`)?.title ?? ""
          )
        const german = yield* titleOf(c.other, 0)
        assert.include(german, "Mia Member")
        assert.notInclude(german, "sent you")
        assert.match(german, /Guthaben|Stunde|Credit|gesendet|geschickt|überwiesen/)
        assert.include(yield* titleOf(d.other, 1), "te ha enviado")
        // In the same statement, the sender (who reads English) is mailed an English confirmation.
        const sent = (yield* queuedMails(c.member)).filter((m) => m.activity_type === "transaction_sent")
        assert.lengthOf(sent, 1)
        assert.match(sent[0]!.subject, /^You sent 1 credit to /)
      }))
  })

  describe("recipients", () => {
    it.effect("a registration rings every admin, broker and coordinator, and welcomes the member", () =>
      Effect.gen(function*() {
        const c = yield* community({ settings: { registration_requires_approval: false } })
        const broker = yield* makeActor(c.tenant, { role: "broker" })
        const coordinator = yield* makeActor(c.tenant, { role: "coordinator" })
        const anonymous = yield* visitor(c.tenant)
        const { data } = yield* anonymous.client.auth.register({
          payload: { email: "newcomer@example.org", password: "long enough", first_name: "Nia", last_name: "New" }
        })
        for (const staff of [c.admin, broker, coordinator]) {
          const [bell] = yield* bellOf(staff, "member_registered")
          assert.deepInclude(bell, { category: "system", title: "New member: Nia New" })
          assert.strictEqual(bell!.actor?.id, data.user.id)
        }
        yield* dispatchSettled
        const plain = yield* c.member.client.notifications.list({ urlParams: {} })
        assert.isFalse(plain.data.some((b) => b.type === "member_registered"))
        const sql = yield* SqlClient.SqlClient
        const welcome = yield* sql<{ type: string; title: string }>`
          SELECT type, title FROM notifications WHERE user_id = ${data.user.id}`
        assert.deepStrictEqual(welcome, [{ type: "welcome", title: `Welcome to ${c.tenant.name}!` }])
        // `welcome` is always instant (D12), whatever the community's default frequency.
        assert.deepStrictEqual((yield* queuedMails({ id: data.user.id })).map((m) => [m.activity_type, m.frequency]), [
          ["welcome", "instant"]
        ])
      }))

    it.effect("a transfer mails the sender's confirmation and asks both parties for a review, by their frequency", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const tx = yield* payOther(c, 4)
        const aboutIt = (m: { subject: string; email_body: string }) =>
          m.subject.includes("4 credits") || m.email_body.includes("4 credits")
        const senderMails = (yield* queuedMails(c.member)).filter(aboutIt)
        assert.deepStrictEqual(senderMails.map((m) => [m.activity_type, m.frequency]), [
          ["transaction_sent", "daily"],
          ["review_request", "daily"]
        ])
        assert.strictEqual(senderMails[0]!.subject, "You sent 4 credits to Otto Other")
        assert.strictEqual(senderMails[1]!.subject, "How did your exchange with Otto Other go?")
        const receiverMails = (yield* queuedMails(c.other)).filter(aboutIt)
        assert.deepStrictEqual(receiverMails.map((m) => m.activity_type).sort(), [
          "review_request",
          "transaction_received"
        ])
        assert.strictEqual((yield* bellsAbout(c, `/wallet/transactions/${tx.id}`)).length, 1)
      }))
  })

  describe("dispatch rules", () => {
    it.effect("a muted sender reaches no channel; unmuted, the bell rings again", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const muted = yield* c.other.client.notificationSettings.mute({ path: { id: UserId.make(c.member.id) } })
        assert.deepStrictEqual(asJson(muted.data), { user_id: c.member.id, muted: true })
        const mailsBefore = (yield* queuedMails(c.other)).length
        const first = yield* payOther(c)
        assert.deepStrictEqual(yield* bellsAbout(c, `/wallet/transactions/${first.id}`), [])
        assert.deepStrictEqual((yield* queuedMails(c.other)).slice(mailsBefore), [])

        const list = (yield* c.other.client.notificationSettings.muted()).data
        assert.deepStrictEqual(list.map((m) => [m.id, m.first_name]), [[c.member.id, "Mia"]])
        const unmuted = yield* c.other.client.notificationSettings.unmute({ path: { id: UserId.make(c.member.id) } })
        assert.isFalse(unmuted.data.muted)
        const second = yield* payOther(c)
        assert.strictEqual((yield* bellsAbout(c, `/wallet/transactions/${second.id}`)).length, 1)
        assert.deepStrictEqual((yield* c.other.client.notificationSettings.muted()).data, [])
      }))

    it.effect("frequency resolves the member's global setting, then the community default; off queues no e-mail", () =>
      Effect.gen(function*() {
        const c = yield* funded({ "notifications.default_frequency": "monthly" })
        yield* payOther(c)
        assert.strictEqual((yield* queuedMails(c.other)).at(-1)!.frequency, "monthly")

        const saved = yield* c.other.client.notificationSettings.saveSetting({
          payload: { context_type: "global", context_id: null, frequency: "instant" }
        })
        assert.deepStrictEqual(saved.data, { context_type: "global", context_id: null, frequency: "instant" })
        yield* payOther(c)
        assert.strictEqual((yield* queuedMails(c.other)).at(-1)!.frequency, "instant")

        yield* c.other.client.notificationSettings.saveSetting({
          payload: { context_type: "global", context_id: null, frequency: "off" }
        })
        const before = (yield* queuedMails(c.other)).length
        const quiet = yield* payOther(c)
        assert.strictEqual((yield* queuedMails(c.other)).length, before)
        assert.strictEqual((yield* bellsAbout(c, `/wallet/transactions/${quiet.id}`)).length, 1)
        const settings = (yield* c.other.client.notificationSettings.settings()).data
        assert.deepStrictEqual(settings, [{ context_type: "global", context_id: null, frequency: "off" }])
      }))

    it.effect("the member's e-mail switch for transactions stops those e-mails, not the bell", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        yield* expectOk(c.other.client.users.updateNotifications({ payload: { email_transactions: false } }))
        const before = (yield* queuedMails(c.other)).length
        const tx = yield* payOther(c)
        assert.strictEqual((yield* queuedMails(c.other)).length, before)
        assert.strictEqual((yield* bellsAbout(c, `/wallet/transactions/${tx.id}`)).length, 1)
      }))

    it.effect("a redelivered event adds no bell and no e-mail; a bell like one of the last minute is not repeated", () =>
      Effect.gen(function*() {
        const c = yield* funded({ "notifications.default_frequency": "instant" })
        const tenant = Option.getOrThrow(yield* Effect.flatMap(TenantDirectory, (t) => t.findById(c.tenant.id)))
        const delivery = {
          type: "badge_awarded" as const,
          to: { members: [c.other.id] },
          actorId: null,
          link: "/badges/1",
          params: { title: "Helper" },
          channels: "bell+email" as const,
          source: "test-1"
        }
        const deliver = (d: typeof delivery) =>
          Effect.flatMap(Dispatcher, (dispatcher) => dispatcher.deliver(d)).pipe(
            Effect.provide(Dispatcher.Default),
            Effect.provideService(CurrentTenant, tenant)
          )
        const first = yield* deliver(delivery)
        assert.strictEqual(first.notificationIds.length, 1)
        assert.strictEqual(first.emails, 1)
        const again = yield* deliver(delivery)
        assert.deepStrictEqual([again.notificationIds.length, again.emails], [0, 0])
        // Another source, same user, type and link within 60 seconds: suppressed, its e-mail with it.
        const echo = yield* deliver({ ...delivery, source: "test-2" })
        assert.deepStrictEqual([echo.notificationIds.length, echo.emails], [0, 0])
        const elsewhere = yield* deliver({ ...delivery, source: "test-3", link: "/badges/2" })
        assert.strictEqual(elsewhere.notificationIds.length, 1)
        const bells = yield* waitForBells(c.other, (items) => items.some((b) => b.link === "/badges/2"))
        assert.strictEqual(bells.filter((b) => b.type === "badge_awarded").length, 2)
      }))
  })

  describe("settings and mute routes", () => {
    it.effect("refuse bad input (422), strangers (404) and callers without a token (401)", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const elsewhere = yield* funded()
        const groupWithoutId = yield* rawRequest("POST", "/api/v2/notifications/settings", {
          headers: c.member.headers,
          body: JSON.stringify({ context_type: "group", context_id: null, frequency: "daily" })
        })
        assert.strictEqual(groupWithoutId.status, 422)
        assert.strictEqual((groupWithoutId.body as { errors: Array<{ field: string }> }).errors[0]!.field, "context_id")
        const badFrequency = yield* rawRequest("POST", "/api/v2/notifications/settings", {
          headers: c.member.headers,
          body: JSON.stringify({ context_type: "global", context_id: null, frequency: "hourly" })
        })
        assert.strictEqual(badFrequency.status, 422)
        const self = yield* c.member.client.notificationSettings.mute({ path: { id: UserId.make(c.member.id) } }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(self.fields, ["id"])
        yield* c.member.client.notificationSettings.mute({ path: { id: UserId.make(elsewhere.other.id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* c.member.client.notificationSettings.unmute({ path: { id: UserId.make(999_999_999) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        const anonymous = yield* visitor(c.tenant)
        yield* anonymous.client.notificationSettings.settings().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* anonymous.client.notificationSettings.muted().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* anonymous.client.notificationSettings.mute({ path: { id: UserId.make(c.member.id) } }).pipe(
          expectError(401, "AUTH_REQUIRED")
        )
      }))
  })
})
