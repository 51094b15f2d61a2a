import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { AdminEventsService } from "./AdminEventsService.js"

/** `adminEvents`: the community's events for its admins. */
export const EventsAdminHttpLive = HttpApiBuilder.group(Api, "adminEvents", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* AdminEventsService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(admin.remove(path.id), ok))
      .handle("cancel", ({ path, payload }) => Effect.map(admin.cancel(path.id, payload), ok))
  }))
