import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireModule } from "../../platform/FeatureGate.js"
import { RecurringEventsService } from "./RecurringEventsService.js"

/** Recurring events and series are the `recurring_events` module (decisions D17); plain events are not. */
export const recurringOn = <A, E, R>(route: Effect.Effect<A, E, R>) =>
  Effect.zipRight(requireModule("recurring_events"), route)

/** `recurringEvents`: create a recurring series, and scoped edits of a series. */
export const RecurringEventsHttpLive = HttpApiBuilder.group(
  Api,
  "recurringEvents",
  (handlers) =>
    Effect.gen(function*() {
      const recurring = yield* RecurringEventsService
      return handlers
        .handle("create", ({ payload }) => recurringOn(Effect.map(recurring.create(payload), ok)))
        .handle("update", ({ path, payload }) => recurringOn(Effect.map(recurring.update(path.id, payload), ok)))
    })
)
