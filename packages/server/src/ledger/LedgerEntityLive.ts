import { Entity } from "@effect/cluster"
import {
  type IdempotencyConflict,
  type InsufficientBalance,
  LedgerEntity,
  type Move,
  type Posted
} from "@timebank/domain"
import { type Cause, Deferred, Duration, Effect, Exit, type Option, Queue, type Tracer } from "effect"
import { oneByOne, withinTime } from "../platform/EntityBatches.js"
import { callerSpan, withBatchSpan } from "../platform/Telemetry.js"
import { LedgerWriter, type MoveOutcome } from "./LedgerWriter.js"

/** The most moves one database transaction applies. */
const MAX_BATCH = 250

/**
 * How long one batch may take, connection wait included, before it is abandoned (interrupted: its statement is
 * cancelled and its transaction rolled back). A healthy batch of 250 moves takes milliseconds; this only catches a
 * hang, which must not hold up every later move of the community. Above the writer's statement timeout, so that a
 * slow statement is reported by PostgreSQL first.
 */
const BATCH_TIMEOUT = Duration.seconds(5)

/** How long the moves of a failed batch may spend failing one by one before the rest fail at once. */
const ONE_BY_ONE_BUDGET = Duration.times(BATCH_TIMEOUT, 2)

interface Pending {
  readonly move: Move
  readonly reply: Deferred.Deferred<Posted, InsufficientBalance | IdempotencyConflict>
  /** The span of the message, which the batch's span continues or links. */
  readonly span: Option.Option<Tracer.AnySpan>
}

const answer = (batch: ReadonlyArray<Pending>, outcomes: ReadonlyArray<MoveOutcome>) =>
  Effect.forEach(batch, (p, i) => Deferred.complete(p.reply, outcomes[i]!), { discard: true })

/** Fails the moves of `batch` not answered yet (an answered move keeps its answer). */
const failUnanswered = (batch: ReadonlyArray<Pending>, cause: Cause.Cause<never>) =>
  Effect.forEach(batch, (p) => Deferred.failCause(p.reply, cause), { discard: true })

/**
 * The Ledger entity of one community. Messages are accepted concurrently and queued; a single writer fiber takes
 * whatever has queued up (group commit) and applies it in one database transaction, so moves of a community never
 * race and a busy community pays one commit per batch, not per move. Balances stay in PostgreSQL: the entity keeps
 * no state that a restart or a shard move could lose.
 *
 * A defect (an SQL error, an exception, a hang) fails only the move that caused it: a failed batch is written
 * again one move at a time, and the writer fiber survives whatever a batch does.
 */
export const LedgerEntityLive = LedgerEntity.toLayer(
  Effect.gen(function*() {
    const tenantId = Number((yield* Entity.CurrentAddress).entityId)
    const writer = yield* LedgerWriter
    const queue = yield* Queue.unbounded<Pending>()

    /** Applies `batch` in one transaction, in bounded time; a synchronous throw is a defect of the batch too. */
    const writeNow = (batch: ReadonlyArray<Pending>) =>
      withinTime(
        `Ledger batch of ${batch.length}`,
        BATCH_TIMEOUT,
        Effect.suspend(() => writer.writeBatch(tenantId, batch.map((p) => p.move)))
      )

    const write = (batch: ReadonlyArray<Pending>) =>
      Effect.gen(function*() {
        const result = yield* Effect.exit(writeNow(batch))
        if (Exit.isSuccess(result)) return yield* answer(batch, result.value)
        // The whole transaction was rolled back. Alone, a move fails with what broke it (the caller may retry with
        // the same key); in a batch, it must not take the others down: each move is written again on its own, in
        // arrival order, so that it still sees the balances the earlier ones left.
        if (batch.length === 1) return yield* failUnanswered(batch, result.cause)
        yield* Effect.logWarning("Ledger batch failed; writing its moves one by one", result.cause)
        yield* oneByOne(batch, {
          budget: ONE_BY_ONE_BUDGET,
          run: (p) => Effect.flatMap(writeNow([p]), (outcomes) => answer([p], outcomes)),
          fail: failUnanswered
        })
      })

    const writeNext = Effect.gen(function*() {
      const batch = [yield* Queue.take(queue), ...(yield* Queue.takeUpTo(queue, MAX_BATCH - 1))]
      // Whatever goes wrong, every caller gets an answer and the loop goes on with the next batch.
      yield* write(batch).pipe(
        withBatchSpan("Ledger.batch", batch.map((p) => p.span)),
        Effect.catchAllCause((cause) => failUnanswered(batch, cause))
      )
    })
    yield* Effect.forkScoped(Effect.forever(writeNext))

    const submit = ({ payload }: { readonly payload: Move }) =>
      Effect.gen(function*() {
        const reply = yield* Deferred.make<Posted, InsufficientBalance | IdempotencyConflict>()
        yield* Queue.offer(queue, { move: payload, reply, span: yield* callerSpan })
        return yield* Deferred.await(reply)
      })

    return LedgerEntity.of({ Transfer: submit, Grant: submit, Deposit: submit, Payout: submit })
  }),
  // A defect fails its own message only: without this, the entity would restart and replay every message in
  // flight, the poisoned one included, and wedge the community's ledger in a restart loop.
  { concurrency: "unbounded", maxIdleTime: "5 minutes", disableFatalDefects: true }
)
