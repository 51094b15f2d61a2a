import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { SeriesService } from "./SeriesService.js"

/** `eventSeries`: standalone series and linking events to them. */
export const SeriesHttpLive = HttpApiBuilder.group(Api, "eventSeries", (handlers) =>
  Effect.gen(function*() {
    const series = yield* SeriesService
    return handlers
      .handle("create", ({ payload }) => Effect.map(series.create(payload), ok))
      .handle("link", ({ path, payload }) => Effect.map(series.link(path.id, payload), ok))
  }))
