import { Layer } from "effect"
import { AdminReportsHttpLive } from "./ReportsAdminHttp.js"
import { ReportsAdminService } from "./ReportsAdminService.js"
import { ReportsHttpLive } from "./ReportsHttp.js"
import { ReportsService } from "./ReportsService.js"

export * from "./ReportsAdminService.js"
export * from "./ReportsService.js"
export * from "./ReportStats.js"
export * from "./ReportTargets.js"
export * from "./ReportTargetViews.js"

/** Members' reports about content and other members (decisions D14, D14a), and their admins handling them (D17). */
export const ModerationLive = Layer.merge(
  ReportsHttpLive.pipe(Layer.provide(ReportsService.Default)),
  AdminReportsHttpLive.pipe(Layer.provide(ReportsAdminService.Default))
)
