import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin } from "../../platform/Policy.js"
import { DashboardService } from "./DashboardService.js"

export const DashboardHttpLive = HttpApiBuilder.group(Api, "adminDashboard", (handlers) =>
  Effect.gen(function*() {
    const dashboard = yield* DashboardService
    return handlers
      .handle("stats", () => requireTenantAdmin(Effect.map(dashboard.stats, ok)))
      .handle("trends", ({ urlParams }) => requireTenantAdmin(Effect.map(dashboard.trends(urlParams), ok)))
  }))
