import { Schema } from "effect"
import { TransactionType } from "./Transaction.js"

/** A credit move was committed; `amount` in hours (cents / 100). */
export class TransactionCompleted extends Schema.TaggedClass<TransactionCompleted>()("TransactionCompleted", {
  transaction_id: Schema.Number,
  type: TransactionType,
  amount: Schema.Number,
  sender_id: Schema.NullOr(Schema.Number),
  recipient_id: Schema.NullOr(Schema.Number),
  listing_id: Schema.NullOr(Schema.Number),
  description: Schema.String,
  /** The payer's name when no member here paid (a federated credit: the partner's member and community). */
  sender_name: Schema.optionalWith(Schema.String, { exact: true })
}) {}
