import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { RecurringEventsService } from "./RecurringEventsService.js"

/** `recurringEvents`: create a recurring series, and scoped edits of a series. */
export const RecurringEventsHttpLive = HttpApiBuilder.group(
  Api,
  "recurringEvents",
  (handlers) =>
    Effect.gen(function*() {
      const recurring = yield* RecurringEventsService
      return handlers
        .handle("create", ({ payload }) => Effect.map(recurring.create(payload), ok))
        .handle("update", ({ path, payload }) => Effect.map(recurring.update(path.id, payload), ok))
    })
)
