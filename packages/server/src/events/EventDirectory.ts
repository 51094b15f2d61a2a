import type { CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import { EventRepo } from "./EventRepo.js"

/** What other features may read of events (moderation checks what a member reports). */
export class EventDirectory extends Effect.Service<EventDirectory>()("EventDirectory", {
  dependencies: [EventRepo.Default],
  effect: Effect.gen(function*() {
    const events = yield* EventRepo

    /** Whether event `id` is one of this community's (cancelled ones included): any member may read it. */
    const exists = (id: number): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.map(events.findById(id), Option.isSome)

    return { exists } as const
  })
}) {}
