import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { ActivityService } from "./ActivityService.js"

const ActivityHttp = HttpApiBuilder.group(Api, "adminActivity", (handlers) =>
  Effect.gen(function*() {
    const activity = yield* ActivityService
    return handlers
      .handle("log", ({ urlParams }) => activity.log(urlParams))
      .handle("dashboard", () => Effect.map(activity.dashboard(), ok))
  }))

/** The activity log and the dashboard's latest activity (the audit trail itself is written by platform). */
export const ActivityHttpLive = ActivityHttp.pipe(Layer.provide(ActivityService.Default))
