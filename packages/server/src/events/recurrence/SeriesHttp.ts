import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { recurringOn } from "./RecurringEventsHttp.js"
import { SeriesService } from "./SeriesService.js"

/** `eventSeries`: standalone series and linking events to them. */
export const SeriesHttpLive = HttpApiBuilder.group(Api, "eventSeries", (handlers) =>
  Effect.gen(function*() {
    const series = yield* SeriesService
    return handlers
      .handle("create", ({ payload }) => recurringOn(Effect.map(series.create(payload), ok)))
      .handle("link", ({ path, payload }) => recurringOn(Effect.map(series.link(path.id, payload), ok)))
  }))
