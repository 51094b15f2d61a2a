import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"

export const TransactionId = RecordId.pipe(Schema.brand("TransactionId"))
export type TransactionId = typeof TransactionId.Type

export const TransactionType = Schema.Literal(
  "transfer",
  "grant",
  "deposit",
  "checkin",
  "autopay",
  "federated",
  "adjustment"
)
export type TransactionType = typeof TransactionType.Type

/** A ledger transaction as members see it (decisions D5), with the direction from the caller's point of view. */
export class WalletTransaction extends Schema.Class<WalletTransaction>("WalletTransaction")({
  id: TransactionId,
  type: TransactionType,
  amount: Schema.Number,
  sender_id: Schema.NullOr(Schema.Int),
  recipient_id: Schema.NullOr(Schema.Int),
  description: Schema.String,
  listing_id: Schema.NullOr(Schema.Int),
  direction: Schema.Literal("in", "out"),
  created_at: Schema.DateTimeUtc
}) {}

export const Wallet = Schema.Struct({ balance: Schema.Number, currency: Schema.Literal("hours") })
