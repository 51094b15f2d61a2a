import { Layer } from "effect"
import { MatchingAdminService } from "./MatchingAdminService.js"
import { AdminMatchingHttpLive, MatchingHttpLive } from "./MatchingHttp.js"
import { MatchingService } from "./MatchingService.js"

export * from "./MatchComputation.js"
export * from "./MatchingAdminService.js"
export * from "./MatchingConfigService.js"
export * from "./MatchingService.js"
export * as MatchScoring from "./MatchScore.js"
export * as MatchText from "./MatchText.js"

/** Matching: members' suggestions and profile, and its administration (decisions D17 "Matching"). */
export const MatchingLive = Layer.mergeAll(
  MatchingHttpLive.pipe(Layer.provide(MatchingService.Default)),
  AdminMatchingHttpLive.pipe(Layer.provide(MatchingAdminService.Default))
)
