import { Layer } from "effect"
import { ReportsHttpLive } from "./ReportsHttp.js"
import { ReportsService } from "./ReportsService.js"

export * from "./ReportsService.js"
export * from "./ReportStats.js"
export * from "./ReportTargets.js"

/** Members' reports about content and other members (decisions D14, D14a); admins resolve them later (D15). */
export const ModerationLive = ReportsHttpLive.pipe(Layer.provide(ReportsService.Default))
