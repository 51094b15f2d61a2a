import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { RemindersService } from "./RemindersService.js"

export const RemindersHttpLive = HttpApiBuilder.group(Api, "eventReminders", (handlers) =>
  Effect.gen(function*() {
    const reminders = yield* RemindersService
    return handlers
      .handle("set", ({ path, payload }) => Effect.map(reminders.set(path.id, payload), ok))
      .handle("list", ({ path }) => Effect.map(reminders.list(path.id), ok))
  }))
