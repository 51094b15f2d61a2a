import { ApiError } from "../http/ApiError.js"

/** The paying account cannot cover the amount (and the community does not allow negative balances). */
export class InsufficientBalance
  extends ApiError<InsufficientBalance>()("InsufficientBalance", "INSUFFICIENT_BALANCE", 422)
{}

/** The Idempotency-Key was used before with a different request. */
export class IdempotencyConflict
  extends ApiError<IdempotencyConflict>()("IdempotencyConflict", "IDEMPOTENCY_CONFLICT", 409)
{}
