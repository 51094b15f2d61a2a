import { Effect, PubSub, type Queue, type Scope } from "effect"

/**
 * Bells just committed by one dispatch, as one batch: the channels that follow a bell (realtime frames, push) take
 * them from here, after the dispatch's transaction committed and off the dispatch's own path (a slow push service
 * never holds up the next event). In-process: the dispatch runs on one runner, and each channel carries the batch
 * on to where it must go (realtime: to every runner).
 */
export interface FreshBellBatch {
  readonly tenantId: number
  /** The new bells' ids and owners, pairwise. */
  readonly notificationIds: ReadonlyArray<number>
  readonly userIds: ReadonlyArray<number>
}

export class FreshBells extends Effect.Service<FreshBells>()("FreshBells", {
  scoped: Effect.gen(function*() {
    // Sliding: a channel that falls far behind loses the oldest batches rather than holding memory without bound.
    const hub = yield* Effect.acquireRelease(PubSub.sliding<FreshBellBatch>(1024), PubSub.shutdown)
    return {
      publish: (batch: FreshBellBatch): Effect.Effect<void> =>
        batch.notificationIds.length === 0 ? Effect.void : Effect.asVoid(PubSub.publish(hub, batch)),
      /** A queue of every batch published from now on, for as long as the scope lasts. */
      subscribe: (): Effect.Effect<Queue.Dequeue<FreshBellBatch>, never, Scope.Scope> => PubSub.subscribe(hub)
    } as const
  })
}) {}
