import { Layer } from "effect"
import { DashboardHttpLive } from "./dashboard/DashboardHttp.js"
import { DashboardService } from "./dashboard/DashboardService.js"

export * from "./activity/ActivityHttp.js"
export * from "./cache/CacheHttp.js"
export * from "./dashboard/DashboardCalendar.js"
export * from "./dashboard/DashboardService.js"
export * from "./SystemHttp.js"

/** The admin dashboard: live figures and daily series of the request's community (decisions D17). */
export const DashboardLive = DashboardHttpLive.pipe(Layer.provide(DashboardService.Default))
