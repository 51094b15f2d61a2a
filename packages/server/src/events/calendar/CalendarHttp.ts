import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect } from "effect"
import { CalendarService } from "./CalendarService.js"

/** Names the file a browser saves; calendar apps that subscribe ignore it. */
const fileName = (name: string) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(
      response.status === 200
        ? HttpServerResponse.setHeader(response, "content-disposition", `inline; filename="${name}"`)
        : response
    )
  )

/** `eventCalendar`: `/events/{id}.ics` and `/events.ics`. */
export const CalendarHttpLive = HttpApiBuilder.group(Api, "eventCalendar", (handlers) =>
  Effect.gen(function*() {
    const calendar = yield* CalendarService
    return handlers
      .handle("event", ({ path }) => Effect.zipLeft(calendar.event(path.id), fileName(`event-${path.id}.ics`)))
      .handle("list", ({ urlParams }) => Effect.zipLeft(calendar.list(urlParams), fileName("events.ics")))
  }))
