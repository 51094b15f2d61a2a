import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { EventsService } from "./EventsService.js"

/** `events`: the public lists and detail, create, edit, cancel and delete. */
export const EventsHttpLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* EventsService
    return handlers
      .handle("list", ({ urlParams }) => events.list(urlParams))
      .handle("get", ({ path }) => Effect.map(events.get(path.id), ok))
      .handle("create", ({ payload }) => Effect.map(events.create(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(events.update(path.id, payload), ok))
      .handle("cancel", ({ path, payload }) => Effect.map(events.cancel(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(events.remove(path.id), ok))
  }))
