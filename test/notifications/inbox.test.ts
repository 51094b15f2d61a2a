import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Notification, NotificationId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { asJson, expectError, expectOk, expectStatus, pageCursor } from "../fixtures/client.js"
import { community, visitor } from "../fixtures/community.js"
import { pay } from "../fixtures/ledger.js"
import { waitForBells } from "../fixtures/notifications.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

const funded = () => community({ settings: { starting_balance: 0 }, fund: { member: 20, other: 20 } })

const nid = (n: number) => NotificationId.make(n)

/** The bells of transfers `payer` made (funding grants ring the bell too, in the community's name). */
const paidBy = (payer: { readonly id: number }) => (items: ReadonlyArray<Notification>) =>
  items.filter((b) => b.type === "transaction_received" && b.actor?.id === payer.id)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("bell inbox", (it) => {
  describe("a transfer rings the receiver's bell", () => {
    it.effect("with the D12 item shape, the sender as actor, counted unread under transactions", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const tx = yield* pay(c.member.client, { recipient_id: c.other.id, amount: 3, description: "Soup" }).pipe(
          expectStatus(201)
        )
        const [bell] = paidBy(c.member)(yield* waitForBells(c.other, (items) => paidBy(c.member)(items).length === 1))
        assert.deepInclude(bell, {
          type: "transaction_received",
          category: "transactions",
          title: "Mia Member sent you 3 credits",
          body: "Soup",
          message: "Soup",
          link: `/wallet/transactions/${tx.data.id}`,
          is_read: false,
          read_at: null
        })
        assert.deepStrictEqual(asJson(bell!.actor), {
          id: c.member.id,
          first_name: "Mia",
          last_name: "Member",
          avatar_url: null
        })
        const counts = (yield* c.other.client.notifications.counts()).data
        assert.strictEqual(counts.transactions, 2) // the transfer and the funding grant
        const { total, ...perCategory } = counts
        assert.strictEqual(total, Object.values(perCategory).reduce((sum, n) => sum + n, 0))
        assert.strictEqual(
          total,
          (yield* c.other.client.notifications.list({ urlParams: { unread_only: "true" } })).data.length
        )
        // The sender hears nothing on the bell for their own transfer.
        const mine = yield* c.member.client.notifications.list({ urlParams: {} })
        assert.isFalse(mine.data.some((b) => b.link === `/wallet/transactions/${tx.data.id}`))
      }))

    it.effect("in the receiver's language: a German member gets German text when an English member pays", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        yield* expectOk(c.other.client.users.updateMe({ payload: { preferred_language: "de" } }))
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 1, description: "Brot" }).pipe(
          expectStatus(201)
        )
        const [bell] = paidBy(c.member)(yield* waitForBells(c.other, (items) => paidBy(c.member)(items).length === 1))
        assert.include(bell!.title, "Mia Member")
        assert.notInclude(bell!.title, "sent you")
        assert.match(bell!.title, /Guthaben|Stunde|Credit|gesendet|geschickt|überwiesen/)
      }))
  })

  describe("list, read and delete", () => {
    it.effect("filters by category and unread, pages with a cursor, reads one, a group and all", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        for (const amount of [1, 2, 3]) {
          yield* pay(c.member.client, { recipient_id: c.other.id, amount }).pipe(expectStatus(201))
        }
        const bells = yield* waitForBells(c.other, (items) => paidBy(c.member)(items).length === 3)
        const received = paidBy(c.member)(bells)
        const grants = bells.length - received.length

        const page1 = yield* c.other.client.notifications.list({ urlParams: { type: "transactions", per_page: 2 } })
        assert.deepStrictEqual(page1.data.map((b) => b.id), received.slice(0, 2).map((b) => b.id))
        assert.isTrue(page1.meta.has_more)
        const page2 = yield* c.other.client.notifications.list({
          urlParams: { type: "transactions", per_page: 2, cursor: pageCursor(RecordId, page1.meta.cursor!) }
        })
        assert.deepStrictEqual(page2.data.map((b) => b.id), [received[2]!.id, ...bells.slice(3).map((b) => b.id)])
        const social = yield* c.other.client.notifications.list({ urlParams: { type: "social" } })
        assert.deepStrictEqual(social.data, [])

        const read = yield* c.other.client.notifications.read({ path: { id: received[0]!.id } })
        assert.isTrue(read.data.is_read)
        assert.isNotNull(read.data.read_at)
        const unread = yield* c.other.client.notifications.list({
          urlParams: { unread_only: "true", type: "transactions" }
        })
        assert.deepStrictEqual(unread.data.map((b) => b.id), bells.slice(1).map((b) => b.id))

        const group = yield* c.other.client.notifications.readGroup({
          payload: { group_key: `transaction_received:${received[1]!.link}` }
        })
        assert.strictEqual(group.data.marked_read, 1)
        const all = yield* c.other.client.notifications.readAll()
        assert.strictEqual(all.data.marked_read, 1 + grants)
        assert.strictEqual((yield* c.other.client.notifications.counts()).data.total, 0)
      }))

    it.effect("deletes one and a category; another member's or tenant's item is a 404", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 1 }).pipe(expectStatus(201))
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 2 }).pipe(expectStatus(201))
        const [second, first] = paidBy(c.member)(
          yield* waitForBells(c.other, (items) => paidBy(c.member)(items).length === 2)
        )
        const elsewhere = yield* funded()

        for (const stranger of [c.member, elsewhere.other]) {
          yield* stranger.client.notifications.get({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* stranger.client.notifications.read({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* stranger.client.notifications.delete({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        const stillUnread = yield* c.other.client.notifications.get({ path: { id: first!.id } })
        assert.isFalse(stillUnread.data.is_read)

        const deleted = yield* c.other.client.notifications.delete({ path: { id: first!.id } })
        assert.deepStrictEqual(deleted.data, { id: first!.id, deleted: true })
        yield* c.other.client.notifications.get({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* c.other.client.notifications.get({ path: { id: nid(999_999_999) } }).pipe(expectError(404, "NOT_FOUND"))

        const byCategory = yield* c.other.client.notifications.deleteCategory({
          urlParams: { category: "transactions" }
        })
        assert.strictEqual(byCategory.data.deleted, 2) // the other transfer and the funding grant
        yield* c.other.client.notifications.get({ path: { id: second!.id } }).pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("refuses an unknown category (422 on type / category), a blank group key, and callers without a token", () =>
      Effect.gen(function*() {
        const c = yield* funded()
        const badType = yield* rawRequest("GET", "/api/v2/notifications?type=gossip", { headers: c.member.headers })
        assert.strictEqual(badType.status, 422)
        assert.strictEqual((badType.body as { errors: Array<{ field: string }> }).errors[0]!.field, "type")
        const badCategory = yield* rawRequest("DELETE", "/api/v2/notifications?category=gossip", {
          headers: c.member.headers
        })
        assert.strictEqual(badCategory.status, 422)
        assert.strictEqual((badCategory.body as { errors: Array<{ field: string }> }).errors[0]!.field, "category")
        const blank = yield* rawRequest("POST", "/api/v2/notifications/group/read", {
          headers: c.member.headers,
          body: JSON.stringify({ group_key: "  " })
        })
        assert.strictEqual(blank.status, 422)
        assert.strictEqual((blank.body as { errors: Array<{ field: string }> }).errors[0]!.field, "group_key")
        const anonymous = yield* visitor(c.tenant)
        yield* anonymous.client.notifications.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* anonymous.client.notifications.counts().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* anonymous.client.notifications.readAll().pipe(expectError(401, "AUTH_REQUIRED"))
      }))
  })

  describe("grouped inbox", () => {
    it.effect("folds items sharing type and link, with up to three actors, counts and ids", () =>
      Effect.gen(function*() {
        const c = yield* community({ settings: { starting_balance: 0 }, members: 4 })
        const sql = yield* SqlClient.SqlClient
        // Five members' bells on one link, written apart in time (the 60-second dedupe lets each through).
        const link = "/events/42"
        for (const [i, who] of [c.member, c.other, ...c.members].entries()) {
          yield* sql`INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, actor_id,
                       group_key, created_at)
                     VALUES (${c.tenant.id}, ${c.admin.id}, 'event_rsvp', 'events', ${`t${i}`}, 'm', ${link},
                       ${who.id}, ${`event_rsvp:${link}`}, now() - ${`${10 - i} minutes`}::interval)`
        }
        yield* sql`INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, group_key)
                   VALUES (${c.tenant.id}, ${c.admin.id}, 'welcome', 'system', 'w', 'm', NULL, 'welcome:')`
        const grouped = (yield* c.admin.client.notifications.grouped()).data
        const rsvps = grouped.find((g) => g.group_key === `event_rsvp:${link}`)!
        assert.strictEqual(rsvps.group_count, 6)
        assert.isTrue(rsvps.is_grouped)
        assert.strictEqual(rsvps.title, "t5")
        assert.deepStrictEqual(rsvps.actors.map((a) => a.id), [c.members[3]!.id, c.members[2]!.id, c.members[1]!.id])
        assert.strictEqual(rsvps.remaining_count, 3)
        assert.isFalse(rsvps.all_read)
        assert.strictEqual(rsvps.notification_ids.length, 6)
        const welcome = grouped.find((g) => g.group_key === "welcome:")!
        assert.isFalse(welcome.is_grouped)
        assert.strictEqual(welcome.group_count, 1)
      }))
  })
})
