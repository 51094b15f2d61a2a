import { Cause, Duration, Effect, Exit } from "effect"

/**
 * `effect` within `limit`, or a defect: it is interrupted (its statement cancelled, its transaction rolled back), so
 * that a hang cannot hold up every later message of an entity.
 */
export const withinTime = <A, E, R>(what: string, limit: Duration.Duration, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFailCause(effect, {
    duration: limit,
    onTimeout: () => Cause.die(new Cause.TimeoutException(`${what} took over ${Duration.format(limit)}`))
  })

/**
 * After a group-commit batch failed (and was rolled back): runs its items one at a time, in arrival order, so that
 * only a bad one fails. Items that fail only after long waits mean that the database, not an item, is stuck: once
 * the failures have taken `budget`, the rest fail at once with the last cause instead of each waiting out its own
 * time bound.
 */
export const oneByOne = <A, E, R>(
  items: ReadonlyArray<A>,
  options: {
    readonly budget: Duration.Duration
    /** Runs one item and answers it; a failure or defect means the item failed. */
    readonly run: (item: A) => Effect.Effect<void, E, R>
    readonly fail: (items: ReadonlyArray<A>, cause: Cause.Cause<E>) => Effect.Effect<void, never, R>
  }
) =>
  Effect.gen(function*() {
    let failing = Duration.zero
    for (const [i, item] of items.entries()) {
      const [took, result] = yield* Effect.timed(Effect.exit(options.run(item)))
      if (Exit.isSuccess(result)) continue
      yield* options.fail([item], result.cause)
      failing = Duration.sum(failing, took)
      if (Duration.greaterThanOrEqualTo(failing, options.budget)) {
        return yield* options.fail(items.slice(i + 1), result.cause)
      }
    }
  })
