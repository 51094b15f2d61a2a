import { Effect } from "effect"
import { makeBus } from "../../platform/Bus.js"
import type { FreshBellBatch } from "../FreshBells.js"
import { type BusMessage, busPayloadsOf } from "./BusMessage.js"
import { RealtimeConfig } from "./RealtimeConfig.js"

/**
 * Carries bell batches from the runner whose dispatch made them to every runner (itself included), which writes
 * the frames of its own sockets. Ids only, split to fit the transport (Redis pub/sub or PostgreSQL NOTIFY).
 */
export class RealtimeBus extends Effect.Service<RealtimeBus>()("RealtimeBus", {
  dependencies: [RealtimeConfig.Default],
  effect: Effect.gen(function*() {
    const config = yield* RealtimeConfig
    const transport = yield* makeBus({
      transport: config.transport,
      channel: config.transport === "redis" ? config.redisChannel : config.postgresChannel,
      name: "realtime"
    })
    const send = (message: FreshBellBatch | BusMessage) =>
      Effect.forEach(busPayloadsOf(message), transport.publish, { discard: true })
    return {
      transport: config.transport,
      /** Everything heard on the bus (runs for as long as it is consumed; reconnects by itself). */
      events: transport.events,
      /** New bells: every runner sends their owners `notification` frames and fresh `counts`. */
      publish: (batch: FreshBellBatch): Effect.Effect<void> =>
        batch.notificationIds.length === 0 ? Effect.void : send(batch),
      /** A member read or deleted items: every runner sends them fresh `counts`. */
      countsChanged: (tenantId: number, userId: number): Effect.Effect<void> =>
        send({ tenantId, notificationIds: [], userIds: [userId] })
    } as const
  })
}) {}
