import { assert, describe, layer } from "@effect/vitest"
import { FederatedMessageId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { makeApiKey, makePartner } from "../fixtures/federation.js"
import { bellOf, queuedMails } from "../fixtures/notifications.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { optIn } from "./inboundKit.js"
import { assertRefused, dataOf, PARTNER_NAME, partnerPost, rowsOf, SENDER, writesCommunity } from "./writesKit.js"

const review = (member: { readonly id: number }, overrides: Record<string, unknown> = {}) => ({
  member_id: member.id,
  rating: 5,
  comment: "  Fixed my bike in no time.  ",
  reviewer: SENDER,
  ...overrides
})

const message = (recipient: { readonly id: number }, overrides: Record<string, unknown> = {}) => ({
  recipient_id: recipient.id,
  subject: "Bike parts",
  body: "Hello! Do you still have the spare chain?",
  sender: SENDER,
  ...overrides
})

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("federation inbound writes", (it) => {
  describe("POST /reviews", () => {
    it.effect("stores a federated review of an opted-in member (201), shows it to members, and tells the member", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const res = yield* partnerPost("/reviews", c.key, review(c.member))
        assert.strictEqual(res.status, 201, JSON.stringify(res.body))
        const created = dataOf<{ id: number; created_at: string }>(res)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            member_id: c.member.id,
            rating: 5,
            comment: "Fixed my bike in no time.",
            is_federated: true,
            reviewer: { id: null, name: "Rita Remote" },
            created_at: created.created_at
          },
          meta: {}
        })
        const [row] = yield* rowsOf((sql) =>
          sql<Record<string, unknown>>`
            SELECT reviewer_id, is_federated, federation_partner_id::int AS partner_id, reviewer_name,
                   reviewer_external_id, target_type, target_id::int AS target_id, approved
            FROM reviews WHERE id = ${created.id}`
        )
        assert.deepStrictEqual(row, {
          reviewer_id: null,
          is_federated: true,
          partner_id: c.partner.id,
          reviewer_name: "Rita Remote",
          reviewer_external_id: "R-17",
          target_type: "user",
          target_id: c.member.id,
          approved: true
        })
        // The community's own review list shows it, with no local reviewer.
        const listed = yield* expectOk(
          c.visitor.client.reviews.list({ path: { type: "user", id: RecordId.make(c.member.id) }, urlParams: {} })
        )
        assert.deepInclude(JSON.parse(JSON.stringify(listed.data[0])), {
          id: created.id,
          reviewer_id: null,
          reviewer: null,
          federated_reviewer: { name: "Rita Remote", partner_id: c.partner.id },
          rating: 5
        })
        // The member's bell names the partner's member and the partner.
        const [bell] = yield* bellOf(c.member, "review_received")
        assert.strictEqual(bell!.title, `Rita Remote (${PARTNER_NAME}) reviewed Mia Member`)
        assert.strictEqual(bell!.actor, null)
      }))

    it.effect("one review per partner's reviewer and member: again is 409 ALREADY_EXISTS; another reviewer may", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        assert.strictEqual((yield* partnerPost("/reviews", c.key, review(c.member))).status, 201)
        const again = yield* partnerPost("/reviews", c.key, review(c.member, { rating: 1 }))
        assertRefused(again, 409, "ALREADY_EXISTS", "member_id")
        const other = yield* partnerPost(
          "/reviews",
          c.key,
          review(c.member, { reviewer: { name: "Ray", external_id: "R-18" } })
        )
        assert.strictEqual(other.status, 201)
        // The same external id at another partner is another person.
        const second = yield* makePartner(c.tenant, { name: "Hillside" })
        const secondKey = yield* makeApiKey(c.tenant, { scopes: ["reviews:write"], partnerId: second.id })
        assert.strictEqual((yield* partnerPost("/reviews", secondKey, review(c.member))).status, 201)
        const rows = yield* rowsOf((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM reviews WHERE target_id = ${c.member.id} AND is_federated`
        )
        assert.strictEqual(rows[0]!.n, 3)
      }))

    it.effect("members not opted in, of another community or unknown are 404; bad ratings 422; keys 403", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const elsewhere = yield* community({ signIn: "token" })
        yield* optIn(elsewhere.member)
        for (const id of [c.other.id, elsewhere.member.id, 999_999_999]) {
          assertRefused(yield* partnerPost("/reviews", c.key, review({ id })), 404, "NOT_FOUND", "member_id")
        }
        for (const rating of [0, 6, 2.5, "5"]) {
          assertRefused(
            yield* partnerPost("/reviews", c.key, review(c.member, { rating })),
            422,
            "VALIDATION_ERROR",
            "rating"
          )
        }
        assertRefused(
          yield* partnerPost("/reviews", c.key, review(c.member, { reviewer: { name: "Rita" } })),
          422,
          "VALIDATION_ERROR",
          "reviewer.external_id"
        )
        const unbound = yield* makeApiKey(c.tenant, { scopes: ["reviews:write"] })
        assertRefused(yield* partnerPost("/reviews", unbound, review(c.member)), 403, "PERMISSION_DENIED")
        const pending = yield* makePartner(c.tenant, { status: "pending" })
        const pendingKey = yield* makeApiKey(c.tenant, { scopes: ["reviews:write"], partnerId: pending.id })
        assertRefused(yield* partnerPost("/reviews", pendingKey, review(c.member)), 403, "PERMISSION_DENIED")
        const readOnly = yield* makeApiKey(c.tenant, { scopes: ["reviews:read"], partnerId: c.partner.id })
        assertRefused(yield* partnerPost("/reviews", readOnly, review(c.member)), 403, "PERMISSION_DENIED")
        const rows = yield* rowsOf((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM reviews WHERE tenant_id = ${c.tenant.id}`
        )
        assert.strictEqual(rows[0]!.n, 0)
      }))
  })

  describe("POST /messages", () => {
    it.effect("stores the message (201), rings the member's bell, and the member reads it", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const res = yield* partnerPost("/messages", c.key, message(c.member))
        assert.strictEqual(res.status, 201, JSON.stringify(res.body))
        const sent = dataOf<{ id: number; created_at: string }>(res)
        assert.deepStrictEqual(res.body, {
          data: {
            id: sent.id,
            recipient_id: c.member.id,
            subject: "Bike parts",
            body: "Hello! Do you still have the spare chain?",
            sender: SENDER,
            created_at: sent.created_at
          },
          meta: {}
        })
        const [bell, ...more] = yield* bellOf(c.member, "new_message")
        assert.deepStrictEqual(more, [])
        assert.deepInclude(bell, {
          title: `New message from Rita Remote (${PARTNER_NAME})`,
          body: "Hello! Do you still have the spare chain?",
          link: `/federation/messages/${sent.id}`,
          actor: null
        })
        const mails = (yield* queuedMails(c.member)).filter((m) => m.activity_type === "new_message")
        assert.deepStrictEqual(mails.map((m) => m.frequency), ["instant"])

        const inbox = yield* expectOk(c.member.client.federatedMessages.list({ urlParams: {} }))
        assert.deepStrictEqual(JSON.parse(JSON.stringify(inbox)), {
          data: [{
            id: sent.id,
            partner: { id: c.partner.id, name: PARTNER_NAME },
            sender: SENDER,
            subject: "Bike parts",
            body: "Hello! Do you still have the spare chain?",
            read_at: null,
            created_at: sent.created_at
          }],
          meta: { per_page: 20, has_more: false }
        })
        const read = yield* expectOk(
          c.member.client.federatedMessages.read({ path: { id: FederatedMessageId.make(sent.id) } })
        )
        assert.isNotNull(read.data.read_at)
        const readAgain = yield* expectOk(
          c.member.client.federatedMessages.read({ path: { id: FederatedMessageId.make(sent.id) } })
        )
        assert.deepStrictEqual(readAgain.data.read_at, read.data.read_at)
        // Nobody else reads it: another member, another community's member.
        assert.deepStrictEqual((yield* expectOk(c.other.client.federatedMessages.list({ urlParams: {} }))).data, [])
        yield* c.other.client.federatedMessages.read({ path: { id: FederatedMessageId.make(sent.id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        const elsewhere = yield* community({ signIn: "token" })
        yield* elsewhere.member.client.federatedMessages.read({ path: { id: FederatedMessageId.make(sent.id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        const anonymous = yield* rawRequest("GET", "/api/v2/federation/messages", { headers: c.visitor.headers })
        assert.strictEqual(anonymous.status, 401)
      }))

    it.effect("the member's list pages newest first; a blank subject is none", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const ids: Array<number> = []
        for (const subject of ["", null, "Third"]) {
          const res = yield* partnerPost("/messages", c.key, message(c.member, { subject }))
          assert.strictEqual(res.status, 201)
          ids.push(dataOf<{ id: number }>(res).id)
        }
        assert.strictEqual(
          dataOf(yield* partnerPost("/messages", c.key, message(c.member, { subject: "  " })))["subject"],
          null
        )
        const first = yield* expectOk(c.member.client.federatedMessages.list({ urlParams: { per_page: 2 } }))
        assert.strictEqual(first.data.length, 2)
        assert.isTrue(first.meta.has_more)
        const rest = yield* expectOk(c.member.client.federatedMessages.list({
          urlParams: { per_page: 2, cursor: pageCursor(RecordId, first.meta.cursor!) }
        }))
        const seen = [...first.data, ...rest.data].map((m) => m.id as number)
        assert.deepStrictEqual(seen.slice(1), [...ids].reverse())
        assert.deepStrictEqual(rest.data.map((m) => m.subject), [null, null])
        assert.isFalse(rest.meta.has_more)
      }))

    it.effect("recipients not opted in or of another community are 404; bad bodies 422; keys 403", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const elsewhere = yield* community({ signIn: "token" })
        yield* optIn(elsewhere.member)
        for (const id of [c.other.id, elsewhere.member.id, 999_999_999]) {
          assertRefused(yield* partnerPost("/messages", c.key, message({ id })), 404, "NOT_FOUND", "recipient_id")
        }
        const bad: ReadonlyArray<[Record<string, unknown>, string]> = [
          [{ body: "" }, "body"],
          [{ body: "   " }, "body"],
          [{ body: "x".repeat(5001) }, "body"],
          [{ subject: "s".repeat(201) }, "subject"],
          [{ sender: { external_id: "R-1" } }, "sender.name"]
        ]
        for (const [overrides, field] of bad) {
          assertRefused(
            yield* partnerPost("/messages", c.key, message(c.member, overrides)),
            422,
            "VALIDATION_ERROR",
            field
          )
        }
        assert.strictEqual(
          (yield* partnerPost("/messages", c.key, message(c.member, { body: "x".repeat(5000) }))).status,
          201
        )
        const unbound = yield* makeApiKey(c.tenant, { scopes: ["messages:write"] })
        assertRefused(yield* partnerPost("/messages", unbound, message(c.member)), 403, "PERMISSION_DENIED")
        const suspended = yield* makePartner(c.tenant, { status: "suspended" })
        const suspendedKey = yield* makeApiKey(c.tenant, { scopes: ["messages:write"], partnerId: suspended.id })
        assertRefused(yield* partnerPost("/messages", suspendedKey, message(c.member)), 403, "PERMISSION_DENIED")
        const noScope = yield* makeApiKey(c.tenant, { scopes: ["reviews:write"], partnerId: c.partner.id })
        assertRefused(yield* partnerPost("/messages", noScope, message(c.member)), 403, "PERMISSION_DENIED")
        const rows = yield* rowsOf((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM federation_messages WHERE tenant_id = ${c.tenant.id}`
        )
        assert.strictEqual(rows[0]!.n, 1)
      }))
  })
})
