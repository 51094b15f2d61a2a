import { Layer } from "effect"
import { AdminGamificationService } from "./AdminGamificationService.js"
import { AdminUserBadgesService } from "./AdminUserBadgesService.js"
import { CampaignsService } from "./CampaignsService.js"
import { GamificationAwardsLive, GamificationEvents } from "./GamificationEvents.js"
import { AdminGamificationHttpLive, AdminUserBadgesHttpLive, GamificationHttpLive } from "./GamificationHttp.js"
import { GamificationService } from "./GamificationService.js"

export * from "./BadgeAwards.js"
export * from "./BadgeCatalogue.js"
export * from "./GamificationEvents.js"
export * from "./GamificationJobs.js"
export * from "./Levels.js"
export * from "./XpRules.js"

/** Gamification's routes: members' points and badges, and the admin routes (decisions D17 "Gamification"). */
export const GamificationLive = Layer.mergeAll(
  GamificationHttpLive.pipe(Layer.provide(GamificationService.Default)),
  AdminGamificationHttpLive.pipe(
    Layer.provide(Layer.merge(AdminGamificationService.Default, CampaignsService.Default))
  ),
  AdminUserBadgesHttpLive.pipe(Layer.provide(AdminUserBadgesService.Default))
)

/** What gamification runs on the cluster: the subscriber that records points and awards badges from events. */
export const GamificationClusterLive = GamificationAwardsLive.pipe(Layer.provide(GamificationEvents.Default))
