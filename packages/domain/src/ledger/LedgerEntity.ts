import { Entity } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Schema } from "effect"
import { IdempotencyConflict, InsufficientBalance } from "./LedgerErrors.js"
import { TransactionType } from "./Transaction.js"

/**
 * An account of the community's ledger. A partner's clearing account (federation, decisions D13a) carries its
 * floor: the lowest balance it may reach, in cents (−credit_limit × 100), enforced by the Ledger entity per move.
 */
export const AccountRef = Schema.Union(
  Schema.TaggedStruct("member", { userId: Schema.Int }),
  Schema.TaggedStruct("organisation", { organisationId: Schema.Int }),
  Schema.TaggedStruct("treasury", {}),
  Schema.TaggedStruct("partner", { partnerId: Schema.Int, floorCents: Schema.Int })
)
export type AccountRef = typeof AccountRef.Type

/**
 * One credit move: `cents` from `from` to `to`. The idempotency key is unique per community; a move with a key
 * already used returns the first outcome when `requestHash` matches, and IdempotencyConflict when it does not.
 */
export const Move = Schema.Struct({
  idempotencyKey: Schema.String,
  requestHash: Schema.String,
  type: TransactionType,
  from: AccountRef,
  to: AccountRef,
  cents: Schema.Int.pipe(Schema.positive()),
  description: Schema.String,
  senderId: Schema.NullOr(Schema.Int),
  recipientId: Schema.NullOr(Schema.Int),
  listingId: Schema.NullOr(Schema.Int),
  createdBy: Schema.NullOr(Schema.Int),
  /** Who paid, when it is no member here (a partner community's member): named in the recipient's notification. */
  senderName: Schema.optionalWith(Schema.String, { exact: true })
})
export type Move = typeof Move.Type

/** What a posted move became. `replayed` when the idempotency key returned an earlier outcome. */
export const Posted = Schema.Struct({
  transactionId: Schema.Int,
  replayed: Schema.Boolean,
  createdAt: Schema.DateTimeUtc
})
export type Posted = typeof Posted.Type

const moveRpc = <const Tag extends string>(tag: Tag) =>
  Rpc.make(tag, {
    payload: Move,
    success: Posted,
    error: Schema.Union(InsufficientBalance, IdempotencyConflict)
  })

/**
 * The ledger of one community (entity id = tenant id). Every credit move of the community goes through it, so that
 * moves never race on a balance, whichever runner receives the request. Other features reuse this protocol.
 */
export const LedgerEntity = Entity.make("Ledger", [
  moveRpc("Transfer"),
  moveRpc("Grant"),
  moveRpc("Deposit"),
  moveRpc("Payout")
])
