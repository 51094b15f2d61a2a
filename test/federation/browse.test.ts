import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf, dataOf, fieldOf, metaOf } from "../fixtures/bodies.js"
import { expectError } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { rawCall } from "../fixtures/events.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  anotherPartner,
  deletePartner,
  partnerCommunity,
  receive,
  recordsOf,
  setPartnerStatus,
  webhook
} from "./receiveKit.js"

const BROWSE = "/api/v2/federation"
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

type Item = Record<string, unknown> & { readonly id: number; readonly remote_id: string }
const itemsOf = (body: unknown) => dataOf<ReadonlyArray<Item>>(body)
const remoteIds = (body: unknown) => itemsOf(body).map((i) => i.remote_id)

const shared = (key: Parameters<typeof receive>[0], event: string, data: Record<string, unknown>) =>
  Effect.flatMap(receive(key, webhook(event, data)), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return Effect.void
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federated browse", (it) => {
  describe("lists", () => {
    it.effect("listings: newest first, each with its partner, remote ids, display fields and the data sent", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity({ partnerName: "River Bank" })
        const hill = yield* anotherPartner(c.tenant, "Hill Bank")
        const bikes = { id: 41, user_id: 77, type: "offer", title: "Bike repairs", status: "active" }
        yield* shared(key, "listing.created", bikes)
        yield* shared(hill.key, "listing.created", { id: "h-1", user_id: 5, type: "request", title: "Dog walks" })
        yield* shared(key, "event.created", { id: 9, user_id: 77, title: "Not a listing" })

        const res = yield* rawCall("GET", `${BROWSE}/listings`, c.member.headers)
        assert.strictEqual(res.status, 200, res.text)
        const [river] = yield* recordsOf(partner.id)
        const items = itemsOf(res.body)
        assert.deepStrictEqual(items.map((i) => [i.remote_id, (i["partner"] as { name: string }).name]), [
          ["h-1", "Hill Bank"],
          ["41", "River Bank"]
        ])
        const item = items[1]!
        assert.deepStrictEqual(item, {
          id: river!.id,
          partner: { id: partner.id, name: "River Bank" },
          remote_id: "41",
          remote_member_id: "77",
          type: "offer",
          title: "Bike repairs",
          description: null,
          data: bikes,
          received_at: item["received_at"],
          updated_at: item["updated_at"]
        })
        assert.match(String(item["received_at"]), ISO)
        assert.deepStrictEqual(metaOf(res.body), { per_page: 20, has_more: false })
      }))

    it.effect("events and groups: their display fields, a start time that is not a date read as null", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity()
        const walk = {
          id: 3,
          user_id: 77,
          title: "Canal walk",
          description: "Meet at the lock",
          start_time: "2030-05-01T10:00:00+02:00",
          end_time: "soon",
          location: "Lock 4",
          is_online: false,
          status: "active"
        }
        yield* shared(key, "event.created", walk)
        const choir = { id: "g-1", owner_id: 78, name: "Choir", description: "Tuesdays", location: "Hall" }
        yield* shared(key, "group.created", choir)

        const events = yield* rawCall("GET", `${BROWSE}/events`, c.member.headers)
        assert.strictEqual(events.status, 200, events.text)
        const [event] = itemsOf(events.body)
        assert.deepStrictEqual({ ...event, received_at: null, updated_at: null }, {
          id: event!.id,
          partner: { id: partner.id, name: "River Bank" },
          remote_id: "3",
          remote_member_id: "77",
          title: "Canal walk",
          description: "Meet at the lock",
          start_time: "2030-05-01T08:00:00.000Z",
          end_time: null,
          location: "Lock 4",
          is_online: false,
          status: "active",
          data: walk,
          received_at: null,
          updated_at: null
        })

        const groups = yield* rawCall("GET", `${BROWSE}/groups`, c.other.headers)
        assert.strictEqual(groups.status, 200, groups.text)
        const [group] = itemsOf(groups.body)
        assert.deepStrictEqual({ ...group, received_at: null, updated_at: null }, {
          id: group!.id,
          partner: { id: partner.id, name: "River Bank" },
          remote_id: "g-1",
          remote_member_id: "78",
          name: "Choir",
          description: "Tuesdays",
          location: "Hall",
          data: choir,
          received_at: null,
          updated_at: null
        })
      }))

    it.effect("pages: per_page, a cursor until the last page; bad cursor and per_page → 422", () =>
      Effect.gen(function*() {
        const { c, key } = yield* partnerCommunity()
        for (let i = 1; i <= 5; i++) yield* shared(key, "group.created", { id: i, owner_id: 1, name: `G${i}` })
        const seen: Array<string> = []
        let cursor: string | undefined
        const sizes: Array<number> = []
        do {
          const query = cursor === undefined ? "?per_page=2" : `?per_page=2&cursor=${cursor}`
          const res = yield* rawCall("GET", `${BROWSE}/groups${query}`, c.member.headers)
          assert.strictEqual(res.status, 200, res.text)
          seen.push(...remoteIds(res.body))
          sizes.push(itemsOf(res.body).length)
          const meta = metaOf(res.body)
          assert.strictEqual(meta.has_more, meta.cursor !== undefined)
          cursor = meta.cursor
        } while (cursor !== undefined)
        assert.deepStrictEqual(seen, ["5", "4", "3", "2", "1"])
        assert.deepStrictEqual(sizes, [2, 2, 1])

        for (
          const [query, field] of [["?cursor=bm90LWEtY3Vyc29y", "cursor"], ["?per_page=101", "per_page"], [
            "?per_page=0",
            "per_page"
          ]] as const
        ) {
          const bad = yield* rawCall("GET", `${BROWSE}/groups${query}`, c.member.headers)
          assert.strictEqual(bad.status, 422, bad.text)
          assert.strictEqual(codeOf(bad.body), "VALIDATION_ERROR")
          assert.strictEqual(fieldOf(bad.body), field)
        }
      }))
  })

  describe("who sees what", () => {
    it.effect("a toggle off → 503 FEDERATION_DISABLED with Retry-After for that list only", () =>
      Effect.gen(function*() {
        const { c, key } = yield* partnerCommunity({ toggles: ["events", "groups"] })
        yield* shared(key, "listing.created", { id: 1, user_id: 2, title: "Stored anyway" })
        const off = yield* rawCall("GET", `${BROWSE}/listings`, c.member.headers)
        assert.strictEqual(off.status, 503, off.text)
        assert.strictEqual(codeOf(off.body), "FEDERATION_DISABLED")
        assert.strictEqual(off.headers["retry-after"], "3600")
        for (const list of ["events", "groups"]) {
          assert.strictEqual((yield* rawCall("GET", `${BROWSE}/${list}`, c.member.headers)).status, 200)
        }
      }))

    it.effect("a community off the whitelist → 503 on every list", () =>
      Effect.gen(function*() {
        yield* partnerCommunity()
        const c = yield* community({ signIn: "token" })
        for (const list of ["events", "listings", "groups"]) {
          const res = yield* rawCall("GET", `${BROWSE}/${list}`, c.member.headers)
          assert.strictEqual(res.status, 503, res.text)
          assert.strictEqual(codeOf(res.body), "FEDERATION_DISABLED")
        }
      }))

    it.effect("records of a partner that is not active (suspended, failed, pending, deleted) are left out", () =>
      Effect.gen(function*() {
        const { c, key, partner } = yield* partnerCommunity({ partnerName: "River Bank" })
        const hill = yield* anotherPartner(c.tenant, "Hill Bank")
        yield* shared(key, "event.created", { id: 1, user_id: 2, title: "River walk" })
        yield* shared(hill.key, "event.created", { id: 1, user_id: 2, title: "Hill walk" })
        const titles = Effect.map(
          rawCall("GET", `${BROWSE}/events`, c.member.headers),
          (res) => itemsOf(res.body).map((i) => i["title"])
        )
        assert.deepStrictEqual(yield* titles, ["Hill walk", "River walk"])
        for (const status of ["suspended", "failed", "pending"] as const) {
          yield* setPartnerStatus(partner.id, status)
          assert.deepStrictEqual(yield* titles, ["Hill walk"], status)
        }
        yield* setPartnerStatus(partner.id, "active")
        assert.deepStrictEqual(yield* titles, ["Hill walk", "River walk"])
        yield* deletePartner(hill.partner.id)
        assert.deepStrictEqual(yield* titles, ["River walk"])
      }))

    it.effect("another community's records are never visible", () =>
      Effect.gen(function*() {
        const a = yield* partnerCommunity({ partnerName: "Shared with A" })
        const b = yield* partnerCommunity({ partnerName: "Shared with B" })
        yield* shared(a.key, "listing.created", { id: 1, user_id: 1, title: "For A" })
        yield* shared(b.key, "listing.created", { id: 1, user_id: 1, title: "For B" })
        const seenBy = (headers: Record<string, string>) =>
          Effect.map(rawCall("GET", `${BROWSE}/listings`, headers), (res) => itemsOf(res.body).map((i) => i["title"]))
        assert.deepStrictEqual(yield* seenBy(a.c.member.headers), ["For A"])
        assert.deepStrictEqual(yield* seenBy(b.c.member.headers), ["For B"])
        // A's member token presented to B's community is no session there.
        const crossed = yield* rawCall("GET", `${BROWSE}/listings`, { ...a.c.member.headers, ...b.c.anonymous })
        assert.strictEqual(crossed.status, 401, crossed.text)
      }))

    it.effect("anonymous → 401 AUTH_REQUIRED; no tenant → 400 tenant_required", () =>
      Effect.gen(function*() {
        const { c } = yield* partnerCommunity()
        yield* c.visitor.client.federatedBrowse.events({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        const anonymous = yield* rawCall("GET", `${BROWSE}/listings`, c.anonymous)
        assert.strictEqual(anonymous.status, 401, anonymous.text)
        assert.strictEqual(codeOf(anonymous.body), "AUTH_REQUIRED")
        const noTenant = yield* rawCall("GET", `${BROWSE}/groups`, {})
        assert.strictEqual(noTenant.status, 400, noTenant.text)
        assert.strictEqual(codeOf(noTenant.body), "tenant_required")
      }))

    it.effect("the typed client reads the lists (every member role)", () =>
      Effect.gen(function*() {
        const { c, key } = yield* partnerCommunity()
        yield* shared(key, "listing.created", { id: 1, user_id: 1, title: "Typed" })
        for (const who of [c.member, c.admin]) {
          const page = yield* who.client.federatedBrowse.listings({ urlParams: { per_page: 5 } })
          assert.deepStrictEqual(page.data.map((l) => l.title), ["Typed"])
          assert.deepStrictEqual(page.meta, { per_page: 5, has_more: false })
        }
      }))
  })
})
