import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { AdminGamificationService } from "./AdminGamificationService.js"
import { AdminUserBadgesService } from "./AdminUserBadgesService.js"
import { CampaignsService } from "./CampaignsService.js"
import { GamificationService } from "./GamificationService.js"

/** Members' routes: points, level and badges (behind the `gamification` feature switch). */
export const GamificationHttpLive = HttpApiBuilder.group(Api, "gamification", (handlers) =>
  Effect.gen(function*() {
    const gamification = yield* GamificationService
    return handlers
      .handle("me", () => Effect.map(gamification.mine, ok))
      .handle("summary", ({ path }) => Effect.map(gamification.summary(path.id), ok))
      .handle("badges", ({ path }) => Effect.map(gamification.badges(path.id), ok))
  }))

/** `/api/v2/admin/gamification/*`. */
export const AdminGamificationHttpLive = HttpApiBuilder.group(
  Api,
  "adminGamification",
  (handlers) =>
    Effect.gen(function*() {
      const admin = yield* AdminGamificationService
      const campaigns = yield* CampaignsService
      return handlers
        .handle("stats", () => Effect.map(admin.statistics(), ok))
        .handle("listBadges", ({ urlParams }) => admin.listBadges(urlParams))
        .handle("createBadge", ({ payload }) => Effect.map(admin.createBadge(payload), ok))
        .handle("deleteBadge", ({ path }) => Effect.map(admin.deleteBadge(path.id), ok))
        .handle("listCampaigns", ({ urlParams }) => campaigns.list(urlParams))
        .handle("createCampaign", ({ payload }) => Effect.map(campaigns.create(payload), ok))
        .handle("updateCampaign", ({ path, payload }) => Effect.map(campaigns.update(path.id, payload), ok))
        .handle("deleteCampaign", ({ path }) => Effect.map(campaigns.remove(path.id), ok))
        .handle("recheckAll", () => Effect.map(admin.recheckAll(), ok))
        .handle("bulkAward", ({ payload }) => Effect.map(admin.bulkAward(payload), ok))
    })
)

/** `/api/v2/admin/users/{id}/badges…` and `/api/v2/admin/users/badges/recheck-all`. */
export const AdminUserBadgesHttpLive = HttpApiBuilder.group(
  Api,
  "adminUserBadges",
  (handlers) =>
    Effect.gen(function*() {
      const userBadges = yield* AdminUserBadgesService
      return handlers
        .handle("recheckAll", () => Effect.map(userBadges.recheckAll(), ok))
        .handle("list", ({ path }) => Effect.map(userBadges.list(path.id), ok))
        .handle("award", ({ path, payload }) => Effect.map(userBadges.award(path.id, payload.badge_id), ok))
        .handle("revoke", ({ path }) => Effect.map(userBadges.revoke(path.id, path.badgeId), ok))
        .handle("recheck", ({ path }) => Effect.map(userBadges.recheck(path.id), ok))
    })
)
