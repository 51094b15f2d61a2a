import { assert, layer } from "@effect/vitest"
import { type BadgeId, type CreateBadge, UserId } from "@timebank/domain"
import { BADGE_CATALOGUE } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, fieldsOf } from "../fixtures/bodies.js"
import { asJson, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { pay } from "../fixtures/ledger.js"
import { bellOf } from "../fixtures/notifications.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { gamificationSettled, keysOf, mine, waitForSummary } from "./kit.js"

const ADMIN = "/api/v2/admin/gamification"

const createBadge = (admin: Actor, payload: CreateBadge) =>
  admin.client.adminGamification.createBadge({ payload, withResponse: true }).pipe(
    expectStatus(201),
    Effect.map((res) => res.data)
  )

const transfer = (from: Actor, to: Actor) =>
  pay(from.client, { recipient_id: to.id, amount: 1 }).pipe(expectStatus(201))

/** A 422 of a raw body, with the fields it names. */
const refused = (headers: Record<string, string>, method: "POST" | "PUT", path: string, body: unknown) =>
  Effect.map(rawRequest(method, path, { headers, body: JSON.stringify(body) }), (res) => {
    assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
    assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
    return fieldsOf(res.body)
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("gamification: admin routes", (it) => {
  it.effect("badges: the default catalogue on first use, admins' own badges, 409 on a key in use, delete", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const page = yield* expectOk(c.admin.client.adminGamification.listBadges({ urlParams: { per_page: 100 } }))
      assert.deepStrictEqual(page.data.map((b) => b.key), BADGE_CATALOGUE.map((b) => b.key))
      assert.deepInclude(page.meta, { total: BADGE_CATALOGUE.length, current_page: 1, has_more: false })
      assert.deepInclude(asJson(page.data[0]), {
        key: "first_transfer",
        criteria: { event: "transfer_sent", threshold: 1 },
        awarded_count: 0
      })
      const second = yield* expectOk(
        c.admin.client.adminGamification.listBadges({ urlParams: { page: 2, per_page: 2 } })
      )
      assert.deepStrictEqual(second.data.map((b) => b.key), ["volunteer_50h", "volunteer_100h"])
      assert.deepInclude(second.meta, { current_page: 2, per_page: 2, total: 9, total_pages: 5, has_more: true })

      const helper = yield* createBadge(c.admin, { key: "helper", name: "Helper", icon: "🦸" })
      assert.deepInclude(asJson(helper), {
        key: "helper",
        name: "Helper",
        description: "",
        icon: "🦸",
        criteria: null,
        awarded_count: 0
      })
      const withCriteria = yield* createBadge(c.admin, {
        key: "transfers_5",
        name: "Five transfers",
        criteria: { event: "transfer_sent", threshold: 5 }
      })
      assert.deepStrictEqual(asJson(withCriteria.criteria), { event: "transfer_sent", threshold: 5 })
      for (const key of ["helper", "first_transfer"]) {
        const failure = yield* c.admin.client.adminGamification.createBadge({ payload: { key, name: "Again" } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        assert.deepStrictEqual(failure.fields, ["key"])
      }

      // Awarded by hand: the member holds it, is told, and the badge counts them.
      const awarded = yield* c.admin.client.adminUserBadges.award({
        path: { id: UserId.make(c.member.id) },
        payload: { badge_id: helper.id },
        withResponse: true
      }).pipe(expectStatus(201))
      assert.deepInclude(asJson(awarded.data), {
        id: helper.id,
        key: "helper",
        source: "manual",
        awarded_by: c.admin.id
      })
      assert.deepStrictEqual(keysOf(yield* mine(c.member)), ["helper"])
      const [bell] = yield* bellOf(c.member, "badge_awarded")
      assert.strictEqual(bell!.title, "You earned a badge: Helper")
      yield* c.admin.client.adminUserBadges.award({
        path: { id: UserId.make(c.member.id) },
        payload: { badge_id: helper.id }
      }).pipe(
        expectError(409, "ALREADY_EXISTS")
      )
      const listed = yield* expectOk(c.admin.client.adminGamification.listBadges({ urlParams: { per_page: 100 } }))
      assert.strictEqual(listed.data.find((b) => b.id === helper.id)?.awarded_count, 1)
      assert.strictEqual(listed.meta.total, 11)

      // Deleting a badge takes its awards with it.
      const deleted = yield* expectOk(c.admin.client.adminGamification.deleteBadge({ path: { id: helper.id } }))
      assert.deepStrictEqual(deleted.data, { id: helper.id, deleted: true })
      assert.deepStrictEqual((yield* mine(c.member)).badges, [])
      yield* c.admin.client.adminGamification.deleteBadge({ path: { id: helper.id } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      // A deleted default stays deleted.
      const firstTransfer = page.data[0]!.id
      yield* expectOk(c.admin.client.adminGamification.deleteBadge({ path: { id: firstTransfer } }))
      const rest = yield* expectOk(c.admin.client.adminGamification.listBadges({ urlParams: { per_page: 100 } }))
      assert.notInclude(rest.data.map((b) => b.key), "first_transfer")
    }))

  it.effect("badges: bad bodies are 422 with their fields", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const path = `${ADMIN}/badges`
      const cases: Array<[unknown, Array<string>]> = [
        [{ key: "Bad Key", name: "x" }, ["key"]],
        [{ key: "ok", name: "   " }, ["name"]],
        [{ name: "No key" }, ["key"]],
        [{ key: "ok", name: "x", criteria: { event: "nope", threshold: 1 } }, ["criteria.event"]],
        [{ key: "ok", name: "x", criteria: { event: "review_given", threshold: 0 } }, ["criteria.threshold"]],
        [{ key: "ok", name: "x", criteria: { event: "review_given", threshold: 1.5 } }, ["criteria.threshold"]],
        [{ key: "ok", name: "x".repeat(101) }, ["name"]]
      ]
      for (const [body, fields] of cases) {
        assert.deepStrictEqual(yield* refused(c.adminHeaders, "POST", path, body), fields, JSON.stringify(body))
      }
      const page = yield* expectOk(c.admin.client.adminGamification.listBadges({ urlParams: {} }))
      assert.strictEqual(page.meta.total, BADGE_CATALOGUE.length, "nothing was created")
    }))

  it.effect("campaigns: create, list, update, delete; ends_at must be after starts_at", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const created = yield* c.admin.client.adminGamification.createCampaign({
        payload: {
          name: "Spring",
          description: "Double points for reviews",
          starts_at: hoursFromNow(-1),
          ends_at: hoursFromNow(24),
          xp_multiplier: 2.5,
          applies_to: ["review_given", "review_given", "listing_posted"]
        },
        withResponse: true
      }).pipe(expectStatus(201))
      assert.deepInclude(asJson(created.data), {
        name: "Spring",
        description: "Double points for reviews",
        xp_multiplier: 2.5,
        applies_to: ["review_given", "listing_posted"],
        is_active: true
      })
      const later = yield* expectOk(c.admin.client.adminGamification.createCampaign({
        payload: {
          name: "Summer",
          starts_at: hoursFromNow(24 * 30),
          ends_at: hoursFromNow(24 * 60),
          xp_multiplier: 1,
          applies_to: ["event_attended"],
          is_active: false
        }
      }))
      const list = yield* expectOk(c.admin.client.adminGamification.listCampaigns({ urlParams: {} }))
      assert.deepStrictEqual(list.data.map((x) => x.name), ["Summer", "Spring"])
      assert.deepInclude(list.meta, { total: 2, per_page: 20 })

      const renamed = yield* expectOk(c.admin.client.adminGamification.updateCampaign({
        path: { id: created.data.id },
        payload: { name: "Spring bonus", xp_multiplier: 3 }
      }))
      assert.deepInclude(asJson(renamed.data), {
        name: "Spring bonus",
        xp_multiplier: 3,
        description: created.data.description
      })
      // The window checked as it would be after the change: an end before the stored start is 422.
      const backwards = yield* c.admin.client.adminGamification.updateCampaign({
        path: { id: created.data.id },
        payload: { ends_at: hoursFromNow(-2) }
      }).pipe(expectError(422, "VALIDATION_ERROR"))
      assert.deepStrictEqual(backwards.fields, ["ends_at"])

      const path = `${ADMIN}/campaigns`
      const valid = {
        name: "x",
        starts_at: "2030-01-01T00:00:00Z",
        ends_at: "2030-02-01T00:00:00Z",
        xp_multiplier: 2,
        applies_to: ["transfer_sent"]
      }
      const cases: Array<[unknown, Array<string>]> = [
        [{ ...valid, ends_at: valid.starts_at }, ["ends_at"]],
        [{ ...valid, ends_at: "2029-12-31T00:00:00Z" }, ["ends_at"]],
        [{ ...valid, xp_multiplier: 11 }, ["xp_multiplier"]],
        [{ ...valid, xp_multiplier: 0.5 }, ["xp_multiplier"]],
        [{ ...valid, applies_to: [] }, ["applies_to"]],
        [{ ...valid, applies_to: ["nope"] }, ["applies_to.0"]],
        [{ ...valid, starts_at: "yesterday" }, ["starts_at"]],
        [{ ...valid, name: "" }, ["name"]]
      ]
      for (const [body, fields] of cases) {
        assert.deepStrictEqual(yield* refused(c.adminHeaders, "POST", path, body), fields, JSON.stringify(body))
      }
      assert.deepStrictEqual(
        yield* refused(c.adminHeaders, "PUT", `${path}/${later.data.id}`, { xp_multiplier: "2" }),
        ["xp_multiplier"]
      )

      const deleted = yield* expectOk(c.admin.client.adminGamification.deleteCampaign({ path: { id: later.data.id } }))
      assert.deepStrictEqual(deleted.data, { id: later.data.id, deleted: true })
      yield* c.admin.client.adminGamification.deleteCampaign({ path: { id: later.data.id } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* c.admin.client.adminGamification.updateCampaign({ path: { id: later.data.id }, payload: { name: "y" } })
        .pipe(expectError(404, "NOT_FOUND"))
      const left = yield* expectOk(c.admin.client.adminGamification.listCampaigns({ urlParams: {} }))
      assert.deepStrictEqual(left.data.map((x) => x.id), [created.data.id])
    }))

  it.effect("recheck awards badges created after the activity; revoke; the badges.recheck job", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      yield* transfer(c.member, c.other)
      yield* transfer(c.member, c.other)
      yield* waitForSummary(c.member, (s) => s.xp === 20)
      yield* waitForSummary(c.other, (s) => s.xp === 10)
      yield* gamificationSettled

      const twice = yield* createBadge(c.admin, {
        key: "transfers_2",
        name: "Two transfers",
        criteria: { event: "transfer_sent", threshold: 2 }
      })
      const three = yield* createBadge(c.admin, {
        key: "transfers_3",
        name: "Three transfers",
        criteria: { event: "transfer_sent", threshold: 3 }
      })
      // Nothing happened since: the new badge waits for a recheck.
      assert.deepStrictEqual(keysOf(yield* mine(c.member)), ["first_transfer"])
      const none = yield* expectOk(c.admin.client.adminUserBadges.recheck({ path: { id: UserId.make(c.other.id) } }))
      assert.deepStrictEqual(none.data, { awarded: 0 })
      const one = yield* expectOk(c.admin.client.adminUserBadges.recheck({ path: { id: UserId.make(c.member.id) } }))
      assert.deepStrictEqual(one.data, { awarded: 1 })
      assert.deepStrictEqual(keysOf(yield* mine(c.member)), ["first_transfer", "transfers_2"])
      assert.notInclude(keysOf(yield* mine(c.member)), three.key)

      yield* createBadge(c.admin, {
        key: "received_2",
        name: "Two received",
        criteria: { event: "transfer_received", threshold: 2 }
      })
      const all = yield* expectOk(c.admin.client.adminGamification.recheckAll())
      assert.deepStrictEqual(all.data, { awarded: 1 })
      assert.deepStrictEqual(keysOf(yield* mine(c.other)), ["received_2"])
      const [bell] = yield* bellOf(c.other, "badge_awarded")
      assert.strictEqual(bell!.title, "You earned a badge: Two received")
      const again = yield* expectOk(c.admin.client.adminUserBadges.recheckAll())
      assert.deepStrictEqual(again.data, { awarded: 0 })

      // Revoked, a badge with criteria comes back with the next recheck (the activity still earns it).
      const revoked = yield* expectOk(
        c.admin.client.adminUserBadges.revoke({ path: { id: UserId.make(c.member.id), badgeId: twice.id } })
      )
      assert.deepStrictEqual(revoked.data, { id: twice.id, user_id: c.member.id, deleted: true })
      const held = yield* expectOk(c.admin.client.adminUserBadges.list({ path: { id: UserId.make(c.member.id) } }))
      assert.deepStrictEqual(held.data.map((b) => b.key), ["first_transfer"])
      yield* c.admin.client.adminUserBadges.revoke({ path: { id: UserId.make(c.member.id), badgeId: twice.id } }).pipe(
        expectError(404, "NOT_FOUND")
      )

      // The job does the same for the community: one award (the revoked one), recorded as the run's items.
      const run = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: "badges.recheck" }, withResponse: true })
        .pipe(expectStatus(200))
      assert.deepInclude(asJson(run.data), { job_id: "badges.recheck", status: "succeeded", items: 1, error: null })
      assert.deepStrictEqual(keysOf(yield* mine(c.member)), ["first_transfer", "transfers_2"])
      const rerun = yield* expectOk(c.admin.client.adminBackgroundJobs.run({ path: { id: "badges.recheck" } }))
      assert.strictEqual(rerun.data.items, 0)
    }))

  it.effect("bulk-award awards members here who lack it and skips other communities' ids and holders", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const elsewhere = yield* community({ signIn: "token" })
      const badge = yield* createBadge(c.admin, { key: "founder", name: "Founder" })
      const theirs = yield* createBadge(elsewhere.admin, { key: "founder", name: "Founder" })
      const first = yield* expectOk(c.admin.client.adminGamification.bulkAward({
        payload: {
          badge_id: badge.id,
          user_ids: [c.member.id, c.other.id, c.member.id, elsewhere.member.id, 999_999_999]
        }
      }))
      assert.deepStrictEqual(first.data, { awarded: 2, skipped: 2 })
      const second = yield* expectOk(c.admin.client.adminGamification.bulkAward({
        payload: { badge_id: badge.id, user_ids: [c.member.id, c.admin.id] }
      }))
      assert.deepStrictEqual(second.data, { awarded: 1, skipped: 1 })
      for (const who of [c.member, c.other, c.admin]) {
        assert.deepInclude(asJson((yield* mine(who)).badges[0]), {
          key: "founder",
          source: "bulk",
          awarded_by: c.admin.id
        })
      }
      assert.deepStrictEqual((yield* mine(elsewhere.member)).badges, [])
      yield* bellOf(c.other, "badge_awarded")
      // Both writes are in the audit trail under their action.
      const log = yield* expectOk(c.admin.client.adminActivity.log({ urlParams: {} }))
      const actions = log.data.map((entry) => entry.action)
      assert.includeMembers(actions, ["badge.created", "badge.bulk-awarded"])
      assert.strictEqual(actions.filter((a) => a === "badge.bulk-awarded").length, 2)

      // Another community's badge, or none: 404 on badge_id; no members: 422.
      for (const badgeId of [theirs.id, 999_999_999 as BadgeId]) {
        const failure = yield* c.admin.client.adminGamification.bulkAward({
          payload: { badge_id: badgeId, user_ids: [c.member.id] }
        }).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(failure.fields, ["badge_id"])
      }
      assert.deepStrictEqual(
        yield* refused(c.adminHeaders, "POST", `${ADMIN}/bulk-award`, { badge_id: badge.id, user_ids: [] }),
        ["user_ids"]
      )
      assert.deepStrictEqual(
        yield* refused(c.adminHeaders, "POST", `${ADMIN}/bulk-award`, { badge_id: badge.id, user_ids: ["x"] }),
        ["user_ids.0"]
      )
    }))

  it.effect("stats count the community's badges, awards, points and running campaigns", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", fund: { member: 10 } })
      const elsewhere = yield* community({ signIn: "token", fund: { member: 10 } })
      yield* transfer(c.member, c.other)
      yield* transfer(elsewhere.member, elsewhere.other)
      yield* waitForSummary(c.member, (s) => s.badges.length === 1)
      yield* waitForSummary(c.other, (s) => s.xp === 5)
      const manual = yield* createBadge(c.admin, { key: "kind", name: "Kind" })
      yield* expectOk(c.admin.client.adminGamification.bulkAward({
        payload: { badge_id: manual.id, user_ids: [c.member.id, c.other.id] }
      }))
      const campaign = (name: string, from: number, to: number, isActive: boolean) =>
        expectOk(c.admin.client.adminGamification.createCampaign({
          payload: {
            name,
            starts_at: hoursFromNow(from),
            ends_at: hoursFromNow(to),
            xp_multiplier: 2,
            applies_to: ["event_attended"],
            is_active: isActive
          }
        }))
      yield* campaign("now", -1, 1, true)
      yield* campaign("off", -1, 1, false)
      yield* campaign("later", 5, 6, true)
      yield* campaign("over", -6, -5, true)

      const stats = yield* expectOk(c.admin.client.adminGamification.stats())
      assert.deepStrictEqual(asJson(stats.data), {
        badges: BADGE_CATALOGUE.length + 1,
        criteria_badges: BADGE_CATALOGUE.length,
        awarded: 3,
        members_with_badges: 2,
        members_with_xp: 2,
        xp_total: 15,
        active_campaigns: 1,
        top_badges: [
          { id: manual.id, key: "kind", name: "Kind", awarded: 2 },
          {
            id: (yield* mine(c.member)).badges.find((b) => b.key === "first_transfer")!.id,
            key: "first_transfer",
            name: "First transfer",
            awarded: 1
          }
        ]
      })
    }))
})
