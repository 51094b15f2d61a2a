import { Deferred, Effect, Layer, Queue, Stream } from "effect"
import { BellRepo } from "../BellRepo.js"
import { FreshBells } from "../FreshBells.js"
import { RealtimeBus } from "./RealtimeBus.js"
import { RealtimeConfig } from "./RealtimeConfig.js"
import { RealtimeDelivery } from "./RealtimeDelivery.js"
import { RealtimeRouteLive } from "./RealtimeRoute.js"
import { RealtimeSockets } from "./RealtimeSockets.js"

export { busPayloadsOf } from "./BusMessage.js"
export { RealtimeBus } from "./RealtimeBus.js"
export { RealtimeConfig } from "./RealtimeConfig.js"
export { REALTIME_PATH } from "./RealtimeRoute.js"
export { RealtimeCloseCodes } from "./RealtimeSockets.js"

/** How long start-up waits for the first bus subscription (a bus still away then only delays frames). */
const FIRST_SUBSCRIPTION_WAIT = "5 seconds"

/**
 * The two fibers of every serving process: one hears the bus and writes the frames of this process's sockets; one
 * forwards the batches this process's dispatch publishes on `FreshBells` (the dispatch runs on one runner at a time,
 * which may change) to the bus.
 */
const RealtimeFibersLive = Layer.scopedDiscard(Effect.gen(function*() {
  const bus = yield* RealtimeBus
  const delivery = yield* RealtimeDelivery
  const fresh = yield* FreshBells
  const subscribed = yield* Deferred.make<void>()
  yield* bus.events.pipe(
    Stream.tap((event) => event._tag === "Connected" ? Deferred.succeed(subscribed, undefined) : Effect.void),
    Stream.runForEach(delivery.handle),
    Effect.forkScoped
  )
  const batches = yield* fresh.subscribe()
  yield* Queue.take(batches).pipe(Effect.flatMap(bus.publish), Effect.forever, Effect.forkScoped)
  yield* Deferred.await(subscribed).pipe(
    Effect.timeout(FIRST_SUBSCRIPTION_WAIT),
    Effect.catchAll(() =>
      Effect.logWarning(`realtime bus (${bus.transport}) not reachable yet; frames follow once it is`)
    )
  )
}))

/**
 * Realtime (decisions D9, D12): the WebSocket route, the bus and its fibers. One instance per process: the layers
 * here are memoised, so `RealtimeBus.Default` provided elsewhere (to call `countsChanged`) is this same bus.
 * Needs `FreshBells` (one per process, shared with the dispatch), the platform and the shared services.
 */
export const RealtimeLive = RealtimeRouteLive.pipe(
  Layer.provide(RealtimeFibersLive),
  Layer.provide(RealtimeDelivery.Default),
  Layer.provide(Layer.mergeAll(RealtimeSockets.Default, RealtimeBus.Default, RealtimeConfig.Default, BellRepo.Default))
)
