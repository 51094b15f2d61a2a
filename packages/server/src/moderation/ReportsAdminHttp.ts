import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ReportsAdminService } from "./ReportsAdminService.js"

export const AdminReportsHttpLive = HttpApiBuilder.group(Api, "adminReports", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* ReportsAdminService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("stats", () => Effect.map(admin.stats(), ok))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("resolve", ({ path, payload }) => Effect.map(admin.resolve(path.id, payload), ok))
      .handle("dismiss", ({ path, payload }) => Effect.map(admin.dismiss(path.id, payload), ok))
  }))
