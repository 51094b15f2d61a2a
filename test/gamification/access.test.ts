import { assert, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { Effect } from "effect"
import { type ApiClient, apiClient, expectError, expectOk } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { mine } from "./kit.js"

type Call = (client: ApiClient) => Effect.Effect<unknown, unknown>

/** Every admin route of gamification, called with ids of `ids` (a badge, a campaign and a member). */
const adminCalls = (
  ids: { readonly badge: number; readonly campaign: number; readonly user: number }
): ReadonlyArray<Call> => {
  const badge = ids.badge as never
  const campaign = ids.campaign as never
  const user = ids.user as never
  return [
    (c: ApiClient) => c.adminGamification.stats(),
    (c: ApiClient) => c.adminGamification.listBadges({ urlParams: {} }),
    (c: ApiClient) => c.adminGamification.createBadge({ payload: { key: "intruder", name: "Intruder" } }),
    (c: ApiClient) => c.adminGamification.deleteBadge({ path: { id: badge } }),
    (c: ApiClient) => c.adminGamification.listCampaigns({ urlParams: {} }),
    (c: ApiClient) =>
      c.adminGamification.createCampaign({
        payload: {
          name: "Intruder",
          starts_at: hoursFromNow(1),
          ends_at: hoursFromNow(2),
          xp_multiplier: 2,
          applies_to: ["transfer_sent"]
        }
      }),
    (c: ApiClient) => c.adminGamification.updateCampaign({ path: { id: campaign }, payload: { name: "Taken" } }),
    (c: ApiClient) => c.adminGamification.deleteCampaign({ path: { id: campaign } }),
    (c: ApiClient) => c.adminGamification.recheckAll(),
    (c: ApiClient) => c.adminGamification.bulkAward({ payload: { badge_id: badge, user_ids: [ids.user] } }),
    (c: ApiClient) => c.adminUserBadges.recheckAll(),
    (c: ApiClient) => c.adminUserBadges.list({ path: { id: user } }),
    (c: ApiClient) => c.adminUserBadges.award({ path: { id: user }, payload: { badge_id: badge } }),
    (c: ApiClient) => c.adminUserBadges.revoke({ path: { id: user, badgeId: badge } }),
    (c: ApiClient) => c.adminUserBadges.recheck({ path: { id: user } })
  ]
}

const setUp = Effect.gen(function*() {
  const c = yield* community({ signIn: "token" })
  const badge = yield* expectOk(
    c.admin.client.adminGamification.createBadge({ payload: { key: "mine", name: "Mine" } })
  )
  const campaign = yield* expectOk(c.admin.client.adminGamification.createCampaign({
    payload: {
      name: "Ours",
      starts_at: hoursFromNow(1),
      ends_at: hoursFromNow(2),
      xp_multiplier: 2,
      applies_to: ["transfer_sent"]
    }
  }))
  yield* expectOk(
    c.admin.client.adminUserBadges.award({
      path: { id: UserId.make(c.member.id) },
      payload: { badge_id: badge.data.id }
    })
  )
  return { c, ids: { badge: badge.data.id, campaign: campaign.data.id, user: c.member.id } }
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("gamification: who may call", (it) => {
  it.effect("no token → 401; member, broker and coordinator → 403 on every admin route; nothing changes", () =>
    Effect.gen(function*() {
      const { c, ids } = yield* setUp
      const anonymous = yield* apiClient(c.anonymous)
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const call of adminCalls(ids)) {
        yield* call(anonymous).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const who of [c.member, broker, coordinator]) yield* call(who.client).pipe(expectError(403, "FORBIDDEN"))
      }
      // The refused calls left the badge, the award and the campaign as they were.
      assert.deepStrictEqual((yield* mine(c.member)).badges.map((b) => b.key), ["mine"])
      const campaigns = yield* expectOk(c.admin.client.adminGamification.listCampaigns({ urlParams: {} }))
      assert.deepStrictEqual(campaigns.data.map((x) => x.name), ["Ours"])
      // Members' routes need a caller too.
      yield* anonymous.gamification.me().pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.gamification.badges({ path: { id: UserId.make(c.member.id) } }).pipe(
        expectError(401, "AUTH_REQUIRED")
      )
    }))

  it.effect("another community's admin gets 404 for this community's badge, campaign and member", () =>
    Effect.gen(function*() {
      const { c, ids } = yield* setUp
      const elsewhere = yield* community({ signIn: "token" })
      const [, , , deleteBadge, , , updateCampaign, deleteCampaign, , bulkAward, , list, award, revoke, recheck] =
        adminCalls(ids)
      for (const call of [deleteBadge, updateCampaign, deleteCampaign, bulkAward, list, award, revoke, recheck]) {
        yield* call!(elsewhere.admin.client).pipe(expectError(404, "NOT_FOUND"))
      }
      // Their lists and statistics show none of it.
      const badges = yield* expectOk(
        elsewhere.admin.client.adminGamification.listBadges({ urlParams: { per_page: 100 } })
      )
      assert.notInclude(badges.data.map((b) => b.id), ids.badge)
      const campaigns = yield* expectOk(elsewhere.admin.client.adminGamification.listCampaigns({ urlParams: {} }))
      assert.deepStrictEqual(campaigns.data, [])
      const stats = yield* expectOk(elsewhere.admin.client.adminGamification.stats())
      assert.strictEqual(stats.data.awarded, 0)
      // Its admin's token names this community: not valid here.
      const stranger = yield* apiClient({ ...elsewhere.adminHeaders, "x-tenant-id": String(c.tenant.id) })
      yield* stranger.adminGamification.stats().pipe(expectError(401, "AUTH_REQUIRED"))
      // Nothing of this community changed.
      assert.deepStrictEqual((yield* mine(c.member)).badges.map((b) => b.key), ["mine"])
    }))

  it.effect("a platform super-admin naming the community manages it; odd ids are 404", () =>
    Effect.gen(function*() {
      const { c, ids } = yield* setUp
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const client = yield* apiClient({ ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
      const stats = yield* expectOk(client.adminGamification.stats())
      assert.strictEqual(stats.data.awarded, 1)
      const listed = yield* expectOk(client.adminUserBadges.list({ path: { id: UserId.make(c.member.id) } }))
      assert.deepStrictEqual(listed.data.map((b) => b.id), [ids.badge])
      // Ids that are not positive integers name nothing (raw: the typed client cannot send them).
      for (const path of [`/api/v2/admin/users/abc/badges`, `/api/v2/admin/gamification/campaigns/0`]) {
        const res = yield* rawRequest(path.includes("campaigns") ? "DELETE" : "GET", path, { headers: c.adminHeaders })
        assert.strictEqual(res.status, 404, res.text)
      }
      // `/users/me/...` is not a member id on the members' badges route.
      const me = yield* rawRequest("GET", "/api/v2/users/me/badges", { headers: c.memberHeaders })
      assert.strictEqual(me.status, 404, me.text)
    }))
})
