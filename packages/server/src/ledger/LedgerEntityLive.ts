import { Entity } from "@effect/cluster"
import {
  type IdempotencyConflict,
  type InsufficientBalance,
  LedgerEntity,
  type Move,
  type Posted
} from "@timebank/domain"
import { Deferred, Effect, Exit, Queue } from "effect"
import { LedgerWriter } from "./LedgerWriter.js"

/** The most moves one database transaction applies. */
const MAX_BATCH = 250

interface Pending {
  readonly move: Move
  readonly reply: Deferred.Deferred<Posted, InsufficientBalance | IdempotencyConflict>
}

/**
 * The Ledger entity of one community. Messages are accepted concurrently and queued; a single writer fiber takes
 * whatever has queued up (group commit) and applies it in one database transaction, so moves of a community never
 * race and a busy community pays one commit per batch, not per move. Balances stay in PostgreSQL: the entity keeps
 * no state that a restart or a shard move could lose.
 */
export const LedgerEntityLive = LedgerEntity.toLayer(
  Effect.gen(function*() {
    const tenantId = Number((yield* Entity.CurrentAddress).entityId)
    const writer = yield* LedgerWriter
    const queue = yield* Queue.unbounded<Pending>()

    const writeNext = Effect.gen(function*() {
      const batch = [yield* Queue.take(queue), ...(yield* Queue.takeUpTo(queue, MAX_BATCH - 1))]
      const result = yield* Effect.exit(writer.writeBatch(tenantId, batch.map((p) => p.move)))
      yield* Exit.match(result, {
        onSuccess: (outcomes) => Effect.forEach(batch, (p, i) => Deferred.complete(p.reply, outcomes[i]!)),
        // The whole batch was rolled back: every caller learns it (and may retry with the same key).
        onFailure: (cause) => Effect.forEach(batch, (p) => Deferred.failCause(p.reply, cause))
      })
    })
    yield* Effect.forkScoped(Effect.forever(writeNext))

    const submit = ({ payload }: { readonly payload: Move }) =>
      Effect.gen(function*() {
        const reply = yield* Deferred.make<Posted, InsufficientBalance | IdempotencyConflict>()
        yield* Queue.offer(queue, { move: payload, reply })
        return yield* Deferred.await(reply)
      })

    return LedgerEntity.of({ Transfer: submit, Grant: submit, Deposit: submit, Payout: submit })
  }),
  { concurrency: "unbounded", maxIdleTime: "5 minutes" }
)
