import type { AccountRef, Cents, Move } from "@timebank/domain"

/** `member:5`, `organisation:3`, `treasury`, `partner:2`: how a batch names accounts. */
export const accountKey = (ref: AccountRef): string => {
  switch (ref._tag) {
    case "member":
      return `member:${ref.userId}`
    case "organisation":
      return `organisation:${ref.organisationId}`
    case "treasury":
      return "treasury"
    case "partner":
      return `partner:${ref.partnerId}`
  }
}

/** The lowest balance an account may reach, in cents; `null`: no floor. */
export type Floor = Cents | null

/**
 * The floor of each kind of account: the treasury issues credits (none); members stay at 0 or above unless the
 * community allows negative balances (none); organisations at 0; a partner's clearing account at the floor its
 * move carries (−credit_limit × 100).
 */
export const accountFloor = (ref: AccountRef, rules: { readonly membersMayGoNegative: boolean }): Floor => {
  switch (ref._tag) {
    case "treasury":
      return null
    case "member":
      return rules.membersMayGoNegative ? null : 0
    case "organisation":
      return 0
    case "partner":
      return ref.floorCents
  }
}

/** Whether paying `cents` from a balance of `balance` keeps the account at or above `floor`. */
export const staysAboveFloor = (balance: Cents, cents: Cents, floor: Floor): boolean =>
  floor === null || balance - cents >= floor

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
  /** The lowest balance the paying account of a move may reach ({@link accountFloor}). */
  readonly floor: (ref: AccountRef) => Floor
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
    if (!staysAboveFloor(balances.get(from) ?? 0, move.cents, input.floor(move.from))) return { _tag: "Insufficient" }
    add(from, -move.cents)
    add(accountKey(move.to), move.cents)
    applied.set(move.idempotencyKey, { index, requestHash: move.requestHash })
    return { _tag: "Apply" }
  })
  return { decisions, deltas }
}
