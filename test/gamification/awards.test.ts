import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type HourLogId, UserId } from "@timebank/domain"
import { decodeOutboxRow, GamificationEvents } from "@timebank/server"
import { Effect, Either } from "effect"
import { asJson, expectError, expectOk, expectStatus, ownAddressClient } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { outboxTransfers, pay } from "../fixtures/ledger.js"
import { bellOf, dispatchSettled } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeApplication, makeOpportunity, staffedCommunity } from "../fixtures/volunteering.js"
import { awardEvents, gamificationSettled, keysOf, mine, waitForSummary, xpRows } from "./kit.js"

const hasBadge = (key: string) => (s: { readonly badges: ReadonlyArray<{ readonly key: string }> }) =>
  s.badges.some((b) => b.key === key)

const transfer = (from: Actor, to: Actor, amount = 1) =>
  pay(from.client, { recipient_id: to.id, amount }).pipe(expectStatus(201))

/** The outbox row of the transfer event `sender` raised (the latest), as the publisher hands it over. */
const transferEventOf = (sender: Actor) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: string; tenant_id: string; event_type: string; payload: unknown; created_at: Date }>`
      SELECT id, tenant_id, event_type, payload, created_at FROM outbox_events
      WHERE event_type = 'TransactionCompleted' AND (payload->>'sender_id')::bigint = ${sender.id}
      ORDER BY id DESC LIMIT 1`.pipe(Effect.orDie)
    const event = Either.getOrThrow(decodeOutboxRow(row!))
    if (event._tag !== "TransactionCompleted") throw new Error(event._tag)
    return { event, meta: { id: Number(row!.id), tenantId: Number(row!.tenant_id), createdAt: row!.created_at } }
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("gamification: awards from events", (it) => {
  it.effect("a first transfer earns the sender its badge, points and a badge_awarded bell; the next earns points", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      const elsewhere = yield* community({ signIn: "token" })
      const before = yield* mine(c.member)
      assert.deepStrictEqual(asJson(before), { user_id: c.member.id, xp: 0, level: 1, next_level_xp: 100, badges: [] })

      yield* transfer(c.member, c.other, 2)
      const earned = yield* waitForSummary(c.member, hasBadge("first_transfer"))
      assert.strictEqual(earned.xp, 10)
      assert.deepStrictEqual(keysOf(earned), ["first_transfer"])
      assert.deepInclude(asJson(earned.badges[0]), {
        key: "first_transfer",
        name: "First transfer",
        source: "criteria",
        awarded_by: null,
        icon: "🤝"
      })
      // The recipient earns points for receiving, and no badge (no default badge counts received transfers).
      const received = yield* waitForSummary(c.other, (s) => s.xp === 5)
      assert.deepStrictEqual(received.badges, [])

      // The member's bell, in GET /api/v2/notifications.
      const [bell] = yield* bellOf(c.member, "badge_awarded")
      assert.deepInclude(asJson(bell), {
        type: "badge_awarded",
        category: "social",
        title: "You earned a badge: First transfer",
        link: `/badges/${earned.badges[0]!.id}`,
        actor: null
      })

      // Another member of the community sees the badge; another community does not see the member at all.
      const seen = yield* expectOk(c.other.client.gamification.badges({ path: { id: UserId.make(c.member.id) } }))
      assert.deepStrictEqual(asJson(seen.data), asJson(earned.badges))
      const theirs = yield* expectOk(c.other.client.gamification.summary({ path: { id: UserId.make(c.member.id) } }))
      assert.deepStrictEqual(asJson(theirs.data), asJson(earned))
      yield* elsewhere.member.client.gamification.badges({ path: { id: UserId.make(c.member.id) } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* elsewhere.member.client.gamification.summary({ path: { id: UserId.make(c.member.id) } }).pipe(
        expectError(404, "NOT_FOUND")
      )

      // A second transfer: points, no second award, no second bell.
      yield* transfer(c.member, c.other, 1)
      const after = yield* waitForSummary(c.member, (s) => s.xp === 20)
      assert.deepStrictEqual(keysOf(after), ["first_transfer"])
      yield* gamificationSettled
      yield* dispatchSettled
      assert.lengthOf(yield* bellOf(c.member, "badge_awarded"), 1)
      assert.lengthOf(yield* awardEvents(c.member), 1)
    }))

  it.effect("a campaign multiplies the points of its events inside its window only", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      const doubled = yield* c.admin.client.adminGamification.createCampaign({
        payload: {
          name: "Double transfers",
          starts_at: hoursFromNow(-1),
          ends_at: hoursFromNow(1),
          xp_multiplier: 2,
          applies_to: ["transfer_sent"]
        }
      }).pipe(expectOk)
      // Not yet running, and for the recipients' side.
      yield* c.admin.client.adminGamification.createCampaign({
        payload: {
          name: "Next week",
          starts_at: hoursFromNow(24 * 7),
          ends_at: hoursFromNow(24 * 8),
          xp_multiplier: 5,
          applies_to: ["transfer_received", "transfer_sent"]
        }
      }).pipe(expectOk)

      yield* transfer(c.member, c.other)
      yield* waitForSummary(c.member, (s) => s.xp === 20)
      yield* waitForSummary(c.other, (s) => s.xp === 5)
      assert.deepStrictEqual((yield* xpRows(c.member)).map((r) => [r.event_type, r.points, r.multiplier]), [
        ["transfer_sent", 20, 2]
      ])

      // Its window moved into the past: the next transfer earns the base points.
      yield* c.admin.client.adminGamification.updateCampaign({
        path: { id: doubled.data.id },
        payload: { starts_at: hoursFromNow(-3), ends_at: hoursFromNow(-2) }
      }).pipe(expectOk)
      yield* transfer(c.member, c.other)
      const after = yield* waitForSummary(c.member, (s) => s.xp >= 30)
      assert.strictEqual(after.xp, 30)
      assert.deepStrictEqual((yield* xpRows(c.member)).map((r) => r.points), [20, 10])

      // Switched off, a campaign multiplies nothing even inside its window.
      yield* c.admin.client.adminGamification.updateCampaign({
        path: { id: doubled.data.id },
        payload: { starts_at: hoursFromNow(-1), ends_at: hoursFromNow(1), is_active: false }
      }).pipe(expectOk)
      yield* transfer(c.member, c.other)
      yield* waitForSummary(c.member, (s) => s.xp >= 40)
      assert.deepStrictEqual((yield* xpRows(c.member)).map((r) => r.points), [20, 10, 10])
    }))

  it.effect("the same event delivered again records and awards nothing more", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      yield* transfer(c.member, c.other)
      yield* waitForSummary(c.member, hasBadge("first_transfer"))
      yield* gamificationSettled
      const { event, meta } = yield* transferEventOf(c.member)
      const again = yield* Effect.flatMap(GamificationEvents, (g) => g.handle(event, meta)).pipe(
        Effect.provide(GamificationEvents.Default)
      )
      assert.strictEqual(again, 0)
      assert.lengthOf(yield* xpRows(c.member), 1)
      assert.lengthOf(yield* xpRows(c.other), 1)
      assert.strictEqual((yield* mine(c.member)).xp, 10)
      assert.lengthOf(yield* awardEvents(c.member), 1)
      yield* dispatchSettled
      assert.lengthOf(yield* bellOf(c.member, "badge_awarded"), 1)
    }))

  it.effect("a batch of events of several communities: points per event time and community, once", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      const off = yield* community({ signIn: "token", features: { gamification: false } })
      yield* c.admin.client.adminGamification.createCampaign({
        payload: {
          name: "This hour",
          starts_at: hoursFromNow(-1),
          ends_at: hoursFromNow(1),
          xp_multiplier: 3,
          applies_to: ["transfer_sent"]
        }
      }).pipe(expectOk)
      const batch = outboxTransfers([
        { where: c, at: new Date(Date.now() - 2 * 3_600_000) }, // before the campaign
        { where: d },
        { where: c }, // inside it
        { where: off }
      ])
      const handleMany = Effect.flatMap(GamificationEvents, (g) => g.handleMany(batch)).pipe(
        Effect.provide(GamificationEvents.Default)
      )
      yield* handleMany
      const points = (who: { readonly id: number }) =>
        Effect.map(xpRows(who), (rows) => rows.map((r) => [r.event_type, r.points, r.multiplier]))
      assert.deepStrictEqual(yield* points(c.member), [["transfer_sent", 10, 1], ["transfer_sent", 30, 3]])
      assert.deepStrictEqual(yield* points(c.other), [["transfer_received", 5, 1], ["transfer_received", 5, 1]])
      assert.deepStrictEqual(yield* points(d.member), [["transfer_sent", 10, 1]])
      assert.deepStrictEqual(yield* points(off.member), [])
      assert.strictEqual((yield* mine(c.member)).xp, 40)

      // Delivered again (a crash before the cursor was saved): nothing more.
      assert.strictEqual(yield* handleMany, 0)
      assert.deepStrictEqual(yield* points(c.member), [["transfer_sent", 10, 1], ["transfer_sent", 30, 3]])
      assert.deepStrictEqual(yield* points(d.member), [["transfer_sent", 10, 1]])
    }))

  it.effect("an event that cannot be recorded is passed over without holding up the next", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      const sql = yield* SqlClient.SqlClient
      // A transfer by nobody: its points row breaks the users foreign key on every attempt.
      const payload = {
        transaction_id: 1,
        type: "transfer",
        amount: 1,
        sender_id: 8_999_999_999,
        recipient_id: null,
        listing_id: null,
        description: ""
      }
      yield* sql`INSERT INTO outbox_events (tenant_id, event_type, payload)
        VALUES (${c.tenant.id}, 'TransactionCompleted', ${JSON.stringify(payload)}::jsonb)`.pipe(Effect.orDie)
      const started = Date.now()
      yield* transfer(c.member, c.other)
      // The publisher's own retries would hold the next event back for over a minute.
      yield* waitForSummary(c.member, hasBadge("first_transfer"))
      assert.isBelow(Date.now() - started, 10_000)
    }))

  it.effect("listings, approved volunteering hours and their thresholds earn their badges", () =>
    Effect.gen(function*() {
      const c = yield* staffedCommunity({ signIn: "token" })
      const client = yield* ownAddressClient(c.member)
      yield* client.listings.create({ payload: { type: "offer", title: "Gardening", description: "Weeding" } }).pipe(
        expectOk
      )
      yield* waitForSummary(c.member, hasBadge("first_listing"))

      const opportunity = yield* makeOpportunity(c.organisation, { title: "Food sorting" })
      yield* makeApplication(opportunity, c.member, "approved")
      const date = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
      const log = (hours: number) =>
        c.member.client.hours.log({
          payload: { organisation_id: c.organisation.id, date, hours, description: "Sorted tins" }
        }).pipe(expectOk, Effect.map((res) => res.data.id as HourLogId))
      const review = (id: HourLogId, status: "approved" | "declined") =>
        c.owner.client.hours.review({ path: { id }, payload: { status } }).pipe(expectOk)

      const declined = yield* log(8)
      yield* review(declined, "declined")
      const first = yield* log(6)
      yield* review(first, "approved")
      const partial = yield* waitForSummary(c.member, (s) => s.xp === 5 + 60)
      assert.deepStrictEqual(keysOf(partial), ["first_listing"])
      const second = yield* log(4)
      yield* review(second, "approved")
      const reached = yield* waitForSummary(c.member, hasBadge("volunteer_10h"))
      assert.strictEqual(reached.xp, 5 + 100)
      assert.strictEqual(reached.level, 2)
      assert.deepStrictEqual(keysOf(reached), ["first_listing", "volunteer_10h"])
    }))

  it.effect("with gamification off nothing is recorded and members' routes are 403 FEATURE_DISABLED", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 }, features: { gamification: false } })
      yield* transfer(c.member, c.other)
      yield* gamificationSettled
      assert.deepStrictEqual(yield* xpRows(c.member), [])
      yield* c.member.client.gamification.me().pipe(expectError(403, "FEATURE_DISABLED"))
      yield* c.member.client.gamification.badges({ path: { id: UserId.make(c.other.id) } }).pipe(
        expectError(403, "FEATURE_DISABLED")
      )
      // Admins still manage it: the statistics show the catalogue and no points.
      const stats = yield* expectOk(c.admin.client.adminGamification.stats())
      assert.deepInclude(stats.data, { awarded: 0, xp_total: 0, members_with_xp: 0 })
    }))
})
