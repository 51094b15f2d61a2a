import { CurrentTenant, Notification, type NotificationCounts } from "@timebank/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { BusEvent } from "../../platform/Bus.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { BellRepo } from "../BellRepo.js"
import { BellViews } from "../BellViews.js"
import { type BusMessage, decodeBusMessage } from "./BusMessage.js"
import { RealtimeRepo } from "./RealtimeRepo.js"
import { RealtimeSockets } from "./RealtimeSockets.js"

const encodeItem = Schema.encodeSync(Notification)

/** The frames of decisions D9, as written on the socket. */
export const Frames = {
  notification: (item: Notification) => JSON.stringify({ type: "notification", data: encodeItem(item) }),
  counts: (counts: NotificationCounts) => JSON.stringify({ type: "counts", data: counts }),
  ping: JSON.stringify({ type: "ping" })
} as const

/**
 * What one runner does with a bus message: keeps the members with a socket here, reads their new bells in one
 * query and their counts in another, under the message's tenant, and writes `notification` then `counts` frames.
 */
export class RealtimeDelivery extends Effect.Service<RealtimeDelivery>()("RealtimeDelivery", {
  dependencies: [BellRepo.Default, BellViews.Default, RealtimeRepo.Default],
  effect: Effect.gen(function*() {
    const sockets = yield* RealtimeSockets
    const bells = yield* BellRepo
    const views = yield* BellViews
    const repo = yield* RealtimeRepo
    const tenants = yield* TenantDirectory

    const framesFor = (message: BusMessage, members: ReadonlyArray<number>, notificationIds: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const rows = yield* bells.byIds(notificationIds)
        const items = yield* views.items(rows)
        const counts = yield* repo.countsFor(members)
        rows.forEach((row, i) => sockets.send(message.tenantId, row.user_id, Frames.notification(items[i]!)))
        for (const [userId, own] of counts) sockets.send(message.tenantId, userId, Frames.counts(own))
      })

    const deliver = (message: BusMessage): Effect.Effect<void> =>
      Effect.gen(function*() {
        const here = (userId: number) => sockets.has(message.tenantId, userId)
        const members = [...new Set(message.userIds.filter(here))]
        if (members.length === 0) return
        const notificationIds = message.notificationIds.filter((_, i) => here(message.userIds[i]!))
        const tenant = yield* tenants.find({ _tag: "Id", id: String(message.tenantId) })
        if (Option.isNone(tenant)) return
        yield* Effect.provideService(framesFor(message, members, notificationIds), CurrentTenant, tenant.value)
      }).pipe(
        // One message that cannot be delivered (the database away for a moment) must not stop the next.
        Effect.catchAllCause((cause) =>
          Effect.logWarning("realtime frames not delivered", cause).pipe(
            Effect.annotateLogs({ tenant_id: message.tenantId })
          )
        )
      )

    /** Frames dropped while the bus was away are not replayed: members here get fresh counts instead. */
    const refreshCounts = Effect.suspend(() =>
      Effect.forEach(
        sockets.members(),
        ({ tenantId, userIds }) => deliver({ tenantId, notificationIds: [], userIds }),
        { discard: true }
      )
    )

    const handle = (event: BusEvent): Effect.Effect<void> => {
      if (event._tag === "Connected") return refreshCounts
      return Either.match(decodeBusMessage(event.payload), {
        onLeft: () => Effect.logWarning("realtime: an unreadable bus message was ignored"),
        onRight: deliver
      })
    }

    return { deliver, handle } as const
  })
}) {}
