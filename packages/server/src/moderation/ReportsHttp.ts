import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ReportsService } from "./ReportsService.js"

export const ReportsHttpLive = HttpApiBuilder.group(Api, "reports", (handlers) =>
  Effect.gen(function*() {
    const reports = yield* ReportsService
    return handlers.handle("create", ({ payload }) => Effect.map(reports.create(payload), ok))
  }))
