import { HttpApiBuilder } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { GroupModerationQueue } from "./GroupModerationQueue.js"

/** `GET /api/v2/admin/groups/moderation` (decisions D17 "Groups admin"). */
export const GroupModerationQueueLive = HttpApiBuilder.group(
  Api,
  "adminGroupModeration",
  (handlers) =>
    Effect.gen(function*() {
      const queue = yield* GroupModerationQueue
      return handlers.handle("queue", ({ urlParams }) => queue.queue(urlParams))
    })
).pipe(Layer.provide(GroupModerationQueue.Default))
