import { Layer } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { FeedActivityLive } from "./FeedActivity.js"
import { AdminCommentsHttpLive, AdminFeedHttpLive } from "./FeedAdminHttp.js"
import { FeedAdminService } from "./FeedAdminService.js"
import { FeedCommentsService } from "./FeedCommentsService.js"
import { FeedHttpLive } from "./FeedHttp.js"
import { FeedPostRepo } from "./FeedPostRepo.js"
import { FeedService } from "./FeedService.js"

export * from "./FeedActivity.js"
export * from "./FeedAdminService.js"
export * from "./FeedCommentsService.js"
export * from "./FeedService.js"

/** The feed's routes: posts, likes and comments (decisions D14, D14a); their moderation (D17). */
export const FeedLive = Layer.mergeAll(
  FeedHttpLive.pipe(
    Layer.provide(FeedService.Default),
    Layer.provide(FeedCommentsService.Default)
  ),
  Layer.merge(AdminFeedHttpLive, AdminCommentsHttpLive).pipe(Layer.provide(FeedAdminService.Default))
)

/** What the feed runs on the cluster: the subscriber that writes activity records. */
export const FeedClusterLive = FeedActivityLive.pipe(
  Layer.provide(FeedPostRepo.Default),
  Layer.provide(GroupDirectory.Default),
  Layer.provide(TenantDirectory.Default)
)
