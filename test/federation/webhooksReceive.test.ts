import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { codeOf, dataOf, errorsOf, fieldsOf } from "../fixtures/bodies.js"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf } from "../fixtures/events.js"
import { federationCall, makeApiKey, makePartner } from "../fixtures/federation.js"
import { balanceOf, fund, pay, verifyLedger } from "../fixtures/ledger.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { TestApp } from "../fixtures/TestApp.js"
import { partnerCommunity, receiptsOf, RECEIVE, receive, recordsOf, webhook } from "./receiveKit.js"

const HANDLED = { data: { received: true, handled: true }, meta: {} }
const NOT_HANDLED = { data: { received: true, handled: false }, meta: {} }
const DUPLICATE = { data: { received: true, duplicate: true }, meta: {} }

const listing = (id: number | string, extra: Record<string, unknown> = {}) => ({
  id,
  user_id: 77,
  type: "offer",
  title: "Bike repairs",
  status: "active",
  category_id: null,
  ...extra
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("webhooks/receive", (it) => {
  describe("receipt", () => {
    it.effect("a first receipt is handled (200), a repeat of its id is a duplicate that changes nothing", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const body = webhook("listing.created", listing(41))
        const first = yield* receive(key, body)
        assert.strictEqual(first.status, 200, first.text)
        assert.deepStrictEqual(first.body, HANDLED)

        // The same id with another body: still a duplicate, and the stored record keeps the first body.
        const again = yield* receive(key, { ...body, data: listing(41, { title: "Changed" }) })
        assert.strictEqual(again.status, 200, again.text)
        assert.deepStrictEqual(again.body, DUPLICATE)

        assert.deepStrictEqual(yield* receiptsOf(key.id), [
          { webhook_id: body.id, tenant_id: c.tenant.id, event: "listing.created", handled: true }
        ])
        const records = yield* recordsOf(partner.id)
        assert.deepStrictEqual(records.map((r) => [r.tenant_id, r.kind, r.remote_id, r.remote_member_id, r.data]), [
          [c.tenant.id, "listing", "41", "77", listing(41)]
        ])
        assert.deepStrictEqual(yield* outboxOf(c.tenant, "FederatedListingReceived"), [{
          partner_id: partner.id,
          record_id: records[0]!.id,
          remote_id: "41",
          remote_member_id: "77",
          title: "Bike repairs",
          created: true
        }])
      }))

    it.effect("duplicates are per key: another key of the partner may use the same id", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const second = yield* makeApiKey(c.tenant, { partnerId: partner.id, signing: true })
        const body = webhook("listing.created", listing(1))
        assert.deepStrictEqual((yield* receive(key, body)).body, HANDLED)
        assert.deepStrictEqual((yield* receive(second, body)).body, HANDLED)
        assert.deepStrictEqual((yield* receive(second, body)).body, DUPLICATE)
        assert.strictEqual((yield* recordsOf(partner.id)).length, 1)
      }))

    it.effect("copies of one webhook sent at once: one handles it, the others are duplicates", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const body = webhook("review.created", { id: 5, reviewer_id: 8, member_id: 9, rating: 4 })
        const answers = yield* Effect.all(Array.from({ length: 6 }, () => receive(key, body)), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200])
        const bodies = answers.map((a) => JSON.stringify(a.body))
        assert.strictEqual(bodies.filter((b) => b === JSON.stringify(HANDLED)).length, 1)
        assert.strictEqual(bodies.filter((b) => b === JSON.stringify(DUPLICATE)).length, 5)
        assert.strictEqual((yield* recordsOf(partner.id)).length, 1)
        assert.strictEqual((yield* receiptsOf(key.id)).length, 1)
        assert.deepStrictEqual(yield* outboxOf(c.tenant, "FederatedReviewReceived"), [{
          partner_id: partner.id,
          record_id: (yield* recordsOf(partner.id))[0]!.id,
          remote_id: "5",
          remote_member_id: "8",
          rating: 4,
          created: true
        }])
      }))

    it.effect("an unknown event is received and not handled; its repeat is a duplicate", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const body = webhook("message.sent", { id: 3, body: "hello" })
        assert.deepStrictEqual((yield* receive(key, body)).body, NOT_HANDLED)
        assert.deepStrictEqual((yield* receive(key, body)).body, DUPLICATE)
        assert.deepStrictEqual(yield* receiptsOf(key.id), [
          { webhook_id: body.id, tenant_id: c.tenant.id, event: "message.sent", handled: false }
        ])
        assert.deepStrictEqual(yield* recordsOf(partner.id), [])
      }))

    it.effect("a key bound to no partner: every event is received and not handled", () =>
      Effect.gen(function*() {
        const { c } = yield* partnerCommunity()
        const loose = yield* makeApiKey(c.tenant, { signing: true })
        assert.deepStrictEqual((yield* receive(loose, webhook("listing.created", listing(1)))).body, NOT_HANDLED)
        const cancel = webhook("transaction.cancelled", { external_id: "tx-1" })
        assert.deepStrictEqual((yield* receive(loose, cancel)).body, NOT_HANDLED)
        assert.deepStrictEqual((yield* receiptsOf(loose.id)).map((r) => r.handled), [false, false])
      }))
  })

  describe("authentication", () => {
    it.effect("unsigned → 401 (AUTH_REQUIRED without credentials, SIGNATURE_REQUIRED with the bare key)", () =>
      Effect.gen(function*() {
        const { key } = yield* partnerCommunity()
        const body = webhook("listing.created", listing(1))
        const none = yield* federationCall("POST", RECEIVE, { body, headers: fromIp(randomIp()) })
        assert.strictEqual(none.status, 401, none.text)
        assert.strictEqual(codeOf(none.body), "AUTH_REQUIRED")
        const bare = yield* federationCall("POST", RECEIVE, { key, body, headers: fromIp(randomIp()) })
        assert.strictEqual(bare.status, 401, bare.text)
        assert.strictEqual(codeOf(bare.body), "SIGNATURE_REQUIRED")
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
      }))

    it.effect("a bad signature → 401 SIGNATURE_INVALID; nothing is received", () =>
      Effect.gen(function*() {
        const { key, partner } = yield* partnerCommunity()
        const forged = { ...key, signingSecret: `tbs_${"0".repeat(64)}` }
        const res = yield* receive(forged, webhook("listing.created", listing(1)))
        assert.strictEqual(res.status, 401, res.text)
        assert.strictEqual(codeOf(res.body), "SIGNATURE_INVALID")
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
        assert.deepStrictEqual(yield* recordsOf(partner.id), [])
      }))

    it.effect("a community off the whitelist → 503 FEDERATION_DISABLED with Retry-After", () =>
      Effect.gen(function*() {
        yield* partnerCommunity()
        const c = yield* community({ signIn: "token" })
        const partner = yield* makePartner(c.tenant)
        const key = yield* makeApiKey(c.tenant, { partnerId: partner.id, signing: true })
        const res = yield* receive(key, webhook("listing.created", listing(1)))
        assert.strictEqual(res.status, 503, res.text)
        assert.strictEqual(codeOf(res.body), "FEDERATION_DISABLED")
        assert.strictEqual(res.headers["retry-after"], "3600")
      }))
  })

  describe("validation", () => {
    it.effect("a body that is not a webhook → 422 per field, and nothing is received", () =>
      Effect.gen(function*() {
        const { key } = yield* partnerCommunity()
        const cases: ReadonlyArray<[unknown, ReadonlyArray<string>]> = [
          [{ event: "listing.created", data: {} }, ["id"]],
          [{ id: "", event: "listing.created", data: {} }, ["id"]],
          [{ id: "x".repeat(201), event: "listing.created", data: {} }, ["id"]],
          [{ id: 5, event: "listing.created", data: {} }, ["id"]],
          [{ id: "a", data: {} }, ["event"]],
          [{ id: "a", event: 7, data: {} }, ["event"]],
          [{ id: "a", event: "listing.created" }, ["data"]],
          [{ id: "a", event: "listing.created", data: [1, 2] }, ["data"]],
          [{ id: "a", event: "listing.created", data: "text" }, ["data"]],
          [{ id: "a", event: "listing.created", data: {}, occurred_at: "yesterday" }, ["occurred_at"]],
          [{ id: "a", event: "listing.created", data: { id: 1, blob: "x".repeat(64 * 1024) } }, ["data"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* receive(key, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), [...fields], JSON.stringify(body).slice(0, 80))
        }
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
      }))

    it.effect("a known event without the id it needs → 422 on data.<field>; the id stays free for a good copy", () =>
      Effect.gen(function*() {
        const { key, partner } = yield* partnerCommunity()
        const cases: ReadonlyArray<[string, Record<string, unknown>, string]> = [
          ["listing.created", { title: "No id" }, "data.id"],
          ["event.updated", { id: "" }, "data.id"],
          ["group.created", { id: 1.5 }, "data.id"],
          ["review.created", { id: { nested: true } }, "data.id"],
          ["group.deleted", {}, "data.id"],
          ["member.opted_out", { member_id: null }, "data.member_id"],
          ["transaction.cancelled", { external_id: "x".repeat(201) }, "data.external_id"]
        ]
        for (const [event, data, field] of cases) {
          const res = yield* receive(key, webhook(event, data))
          assert.strictEqual(res.status, 422, `${event}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", field]])
        }
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
        const body = webhook("listing.created", { title: "No id" })
        assert.strictEqual((yield* receive(key, body)).status, 422)
        assert.deepStrictEqual((yield* receive(key, { ...body, data: listing("L-1") })).body, HANDLED)
        assert.deepStrictEqual((yield* recordsOf(partner.id)).map((r) => r.remote_id), ["L-1"])
      }))
  })

  describe("ingest", () => {
    it.effect("listing, event, group and review events store the partner's records, keyed by kind and id", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const event = { id: 12, user_id: 77, title: "Repair café", start_time: "2030-05-01T10:00:00Z" }
        const group = { id: "g-3", owner_id: 78, name: "Cyclists", visibility: "public", status: "active" }
        const sent: ReadonlyArray<[string, Record<string, unknown>]> = [
          ["listing.created", listing(12)],
          ["event.created", event],
          ["group.created", group],
          ["review.created", { id: 12, reviewer_id: 79, member_id: 80, rating: 5 }]
        ]
        // Top-level keys this service does not know are tolerated.
        for (const [name, data] of sent) {
          assert.deepStrictEqual((yield* receive(key, { ...webhook(name, data), version: 2 })).body, HANDLED)
        }
        const records = yield* recordsOf(partner.id)
        assert.deepStrictEqual(records.map((r) => [r.tenant_id, r.kind, r.remote_id, r.remote_member_id, r.data]), [
          [c.tenant.id, "listing", "12", "77", listing(12)],
          [c.tenant.id, "event", "12", "77", event],
          [c.tenant.id, "group", "g-3", "78", group],
          [c.tenant.id, "review", "12", "79", { id: 12, reviewer_id: 79, member_id: 80, rating: 5 }]
        ])
        // Events and groups raise no domain event; listings and reviews do.
        assert.strictEqual((yield* outboxOf(c.tenant, "FederatedListingReceived")).length, 1)
        assert.strictEqual((yield* outboxOf(c.tenant, "FederatedReviewReceived")).length, 1)
      }))

    it.effect("an update replaces the keys it sends in the same record; an older one changes nothing", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 12, minutes)).toISOString()
        yield* receive(key, webhook("listing.created", listing(7), { occurred_at: at(0) }))
        const [stored] = yield* recordsOf(partner.id)
        // Our own `listing.updated` carries only what changed (D13 outbound shapes).
        const update = { id: 7, user_id: 77, title: "Bike and scooter repairs", fields: ["title"], status: "active" }
        assert.deepStrictEqual(
          (yield* receive(key, webhook("listing.updated", update, { occurred_at: at(5) }))).body,
          HANDLED
        )
        const stale = { id: 7, user_id: 77, title: "Old title", fields: ["title"], status: "active" }
        assert.deepStrictEqual(
          (yield* receive(key, webhook("listing.updated", stale, { occurred_at: at(2) }))).body,
          HANDLED
        )
        const records = yield* recordsOf(partner.id)
        assert.deepStrictEqual(records.map((r) => [r.id, r.data]), [
          [stored!.id, { ...listing(7), title: "Bike and scooter repairs", fields: ["title"] }]
        ])
        const raised = yield* outboxOf(c.tenant, "FederatedListingReceived")
        assert.deepStrictEqual(raised.map((e) => [e["title"], e["created"]]), [
          ["Bike repairs", true],
          ["Bike and scooter repairs", false]
        ])
      }))

    it.effect("a listing no longer active, or a group made private, is dropped", () =>
      Effect.gen(function*() {
        const { key, partner } = yield* partnerCommunity()
        yield* receive(key, webhook("listing.created", listing(1)))
        yield* receive(key, webhook("listing.created", listing(2)))
        yield* receive(key, webhook("group.created", { id: 3, owner_id: 5, name: "Choir", visibility: "public" }))
        yield* receive(key, webhook("group.created", { id: 4, owner_id: 5, name: "Chess", visibility: "public" }))
        const paused = { id: 1, user_id: 77, fields: ["status"], status: "paused" }
        assert.deepStrictEqual((yield* receive(key, webhook("listing.updated", paused))).body, HANDLED)
        const hidden = { id: 3, owner_id: 5, visibility: "private", status: "active", fields: ["visibility"] }
        assert.deepStrictEqual((yield* receive(key, webhook("group.updated", hidden))).body, HANDLED)
        assert.deepStrictEqual((yield* recordsOf(partner.id)).map((r) => [r.kind, r.remote_id]), [
          ["listing", "2"],
          ["group", "4"]
        ])
      }))

    it.effect("group.deleted removes that group only (and a repeat for a gone group is still handled)", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const other = yield* makePartner(c.tenant, { name: "Hill Bank" })
        const otherKey = yield* makeApiKey(c.tenant, { partnerId: other.id, signing: true })
        for (const k of [key, otherKey]) {
          yield* receive(k, webhook("group.created", { id: 3, owner_id: 5, name: "Choir" }))
        }
        yield* receive(key, webhook("group.created", { id: 4, owner_id: 5, name: "Chess" }))
        yield* receive(key, webhook("listing.created", listing(3)))
        assert.deepStrictEqual((yield* receive(key, webhook("group.deleted", { id: 3 }))).body, HANDLED)
        assert.deepStrictEqual((yield* recordsOf(partner.id)).map((r) => [r.kind, r.remote_id]), [
          ["group", "4"],
          ["listing", "3"]
        ])
        assert.deepStrictEqual((yield* recordsOf(other.id)).map((r) => [r.kind, r.remote_id]), [["group", "3"]])
        assert.deepStrictEqual((yield* receive(key, webhook("group.deleted", { id: 3 }))).body, HANDLED)
      }))

    it.effect("member.opted_out removes every record of that partner member, and reviews about them", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const other = yield* makePartner(c.tenant, { name: "Hill Bank" })
        const otherKey = yield* makeApiKey(c.tenant, { partnerId: other.id, signing: true })
        yield* receive(key, webhook("listing.created", listing(1, { user_id: 77 })))
        yield* receive(key, webhook("listing.created", listing(2, { user_id: 78 })))
        yield* receive(key, webhook("event.created", { id: 3, user_id: 77, title: "Walk" }))
        yield* receive(key, webhook("group.created", { id: 4, owner_id: 77, name: "Choir" }))
        yield* receive(key, webhook("review.created", { id: 5, reviewer_id: 78, member_id: 77, rating: 5 }))
        yield* receive(key, webhook("review.created", { id: 6, reviewer_id: 79, member_id: 78, rating: 3 }))
        yield* receive(otherKey, webhook("listing.created", listing(1, { user_id: 77 })))
        const res = yield* receive(key, webhook("member.opted_out", { member_id: 77 }))
        assert.deepStrictEqual(res.body, HANDLED)
        assert.deepStrictEqual((yield* recordsOf(partner.id)).map((r) => [r.kind, r.remote_id]), [
          ["listing", "2"],
          ["review", "6"]
        ])
        // Partner ids are the partner's own: member 77 of another partner is someone else.
        assert.deepStrictEqual((yield* recordsOf(other.id)).map((r) => r.remote_id), ["1"])
      }))
  })

  describe("transaction.cancelled", () => {
    /** The partner credits Mia 2.5 hours through `POST /transactions` (she opted in). */
    const credited = Effect.gen(function*() {
      const setup = yield* partnerCommunity({ community: { settings: { starting_balance: 0 } } })
      const { c, key } = setup
      yield* c.member.client.users.updateMe({ payload: { federation_opt_in: true } }).pipe(expectOk)
      const externalId = `tx-${randomUUID()}`
      const res = yield* federationCall("POST", "/api/v1/federation/transactions", {
        key,
        body: {
          external_id: externalId,
          recipient_id: c.member.id,
          amount: 2.5,
          description: "Garden help",
          sender: { name: "Rosa River", external_id: "r-7" }
        },
        sign: true,
        headers: fromIp(randomIp())
      })
      assert.strictEqual(res.status, 201, res.text)
      assert.strictEqual(yield* balanceOf(c.member.headers), 2.5)
      return { ...setup, externalId, transactionId: dataOf<{ id: number }>(res.body).id }
    })

    const statusOf = (key: Parameters<typeof receive>[0], id: number) =>
      Effect.map(
        federationCall("GET", `/api/v1/federation/transactions/${id}`, {
          key,
          sign: true,
          headers: fromIp(randomIp())
        }),
        (res) => dataOf<{ status: string }>(res.body).status
      )

    it.effect("refunds the credit once: its repeat is a duplicate, another id naming it refunds nothing more", () =>
      Effect.gen(function*() {
        const { c, externalId, key, transactionId } = yield* credited
        const body = webhook("transaction.cancelled", { external_id: externalId })
        assert.deepStrictEqual((yield* receive(key, body)).body, HANDLED)
        assert.strictEqual(yield* balanceOf(c.member.headers), 0)
        assert.strictEqual(yield* statusOf(key, transactionId), "cancelled")

        assert.deepStrictEqual((yield* receive(key, body)).body, DUPLICATE)
        const other = webhook("transaction.cancelled", { external_id: externalId })
        assert.deepStrictEqual((yield* receive(key, other)).body, HANDLED)
        assert.strictEqual(yield* balanceOf(c.member.headers), 0)
        assert.deepStrictEqual((yield* receiptsOf(key.id)).map((r) => [r.event, r.handled]), [
          ["transaction.cancelled", true],
          ["transaction.cancelled", true]
        ])
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("copies of a cancel sent at once refund once", () =>
      Effect.gen(function*() {
        const { c, externalId, key } = yield* credited
        const body = webhook("transaction.cancelled", { external_id: externalId })
        const answers = yield* Effect.all(Array.from({ length: 5 }, () => receive(key, body)), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200])
        const bodies = answers.map((a) => JSON.stringify(a.body))
        assert.strictEqual(bodies.filter((b) => b === JSON.stringify(HANDLED)).length, 1, bodies.join())
        assert.strictEqual(bodies.filter((b) => b === JSON.stringify(DUPLICATE)).length, 4, bodies.join())
        assert.strictEqual(yield* balanceOf(c.member.headers), 0)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("an unknown external_id is received and not handled", () =>
      Effect.gen(function*() {
        const { c, key } = yield* credited
        const res = yield* receive(key, webhook("transaction.cancelled", { external_id: "never-sent" }))
        assert.deepStrictEqual(res.body, NOT_HANDLED)
        assert.strictEqual(yield* balanceOf(c.member.headers), 2.5)
      }))

    it.effect("a member who spent the credit: 422 INSUFFICIENT_BALANCE, not received; the retry refunds later", () =>
      Effect.gen(function*() {
        const { c, externalId, key } = yield* credited
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 2 }).pipe(Effect.orDie)
        const body = webhook("transaction.cancelled", { external_id: externalId })
        const refused = yield* receive(key, body)
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual(codeOf(refused.body), "INSUFFICIENT_BALANCE")
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
        assert.strictEqual(yield* balanceOf(c.member.headers), 0.5)

        yield* fund(c.admin.headers, c.member.id, 2)
        assert.deepStrictEqual((yield* receive(key, body)).body, HANDLED)
        assert.strictEqual(yield* balanceOf(c.member.headers), 0)
        assert.deepStrictEqual((yield* receive(key, body)).body, DUPLICATE)
      }))

    it.effect("another partner cannot cancel this partner's credit", () =>
      Effect.gen(function*() {
        const { c, externalId, key } = yield* credited
        const stranger = yield* makePartner(c.tenant, { name: "Hill Bank" })
        const strangerKey = yield* makeApiKey(c.tenant, { partnerId: stranger.id, signing: true })
        const res = yield* receive(strangerKey, webhook("transaction.cancelled", { external_id: externalId }))
        assert.deepStrictEqual(res.body, NOT_HANDLED)
        assert.strictEqual(yield* balanceOf(c.member.headers), 2.5)
        assert.deepStrictEqual(yield* receiptsOf(key.id), [])
      }))
  })
})
