import type { AccountRef, Cents, Move } from "@timebank/domain"

/** `member:5`, `organisation:3`, `treasury`: how a batch names accounts. */
export const accountKey = (ref: AccountRef): string => {
  switch (ref._tag) {
    case "member":
      return `member:${ref.userId}`
    case "organisation":
      return `organisation:${ref.organisationId}`
    case "treasury":
      return "treasury"
  }
}

export interface EarlierOutcome {
  readonly transactionId: number
  readonly requestHash: string
  readonly createdAt: Date
}

export type Decision =
  | { readonly _tag: "Apply" }
  | { readonly _tag: "Replay"; readonly earlier: EarlierOutcome }
  /** Same key as a move applied earlier in this batch: it gets that move's outcome once it is written. */
  | { readonly _tag: "SameAs"; readonly index: number }
  | { readonly _tag: "Conflict" }
  | { readonly _tag: "Insufficient" }

export interface BatchInput {
  readonly moves: ReadonlyArray<Move>
  /** Balances in cents before the batch, by account key. */
  readonly balances: ReadonlyMap<string, Cents>
  /** Outcomes already recorded for the batch's idempotency keys. */
  readonly earlier: ReadonlyMap<string, EarlierOutcome>
  /** Whether an account may go below zero (the treasury always; members where the community allows it). */
  readonly mayGoNegative: (ref: AccountRef) => boolean
}

export interface BatchPlan {
  readonly decisions: ReadonlyArray<Decision>
  /** Net change per account key, in cents, of the moves that apply. */
  readonly deltas: ReadonlyMap<string, Cents>
}

/**
 * Decides every move of a batch in arrival order, as if they were applied one by one: each move sees the balances
 * left by the moves before it. Pure, so the ledger's rules can be tested without a database.
 */
export const planBatch = (input: BatchInput): BatchPlan => {
  const balances = new Map(input.balances)
  const deltas = new Map<string, Cents>()
  const applied = new Map<string, { readonly index: number; readonly requestHash: string }>()
  const add = (key: string, cents: Cents) => {
    balances.set(key, (balances.get(key) ?? 0) + cents)
    deltas.set(key, (deltas.get(key) ?? 0) + cents)
  }

  const decisions = input.moves.map((move, index): Decision => {
    const earlier = input.earlier.get(move.idempotencyKey)
    if (earlier) return earlier.requestHash === move.requestHash ? { _tag: "Replay", earlier } : { _tag: "Conflict" }
    const inBatch = applied.get(move.idempotencyKey)
    if (inBatch) {
      return inBatch.requestHash === move.requestHash
        ? { _tag: "SameAs", index: inBatch.index }
        : { _tag: "Conflict" }
    }

    const from = accountKey(move.from)
    if ((balances.get(from) ?? 0) - move.cents < 0 && !input.mayGoNegative(move.from)) return { _tag: "Insufficient" }
    add(from, -move.cents)
    add(accountKey(move.to), move.cents)
    applied.set(move.idempotencyKey, { index, requestHash: move.requestHash })
    return { _tag: "Apply" }
  })
  return { decisions, deltas }
}
