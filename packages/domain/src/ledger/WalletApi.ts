import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { PathId, RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Credits } from "./Credits.js"
import { IdempotencyConflict, InsufficientBalance } from "./LedgerErrors.js"
import { TransactionId, Wallet, WalletTransaction } from "./Transaction.js"

/** Money-moving POSTs honour `Idempotency-Key` (decisions D5). */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))
})

export const TransferRequest = Schema.Struct({
  recipient_id: RecordId,
  amount: Credits,
  description: Schema.Trim.pipe(Schema.maxLength(500)),
  listing_id: Schema.optional(RecordId)
})
export type TransferRequest = typeof TransferRequest.Type

export const GrantRequest = Schema.Struct({
  user_id: RecordId,
  amount: Credits,
  reason: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(500))
})
export type GrantRequest = typeof GrantRequest.Type

/** The caller's wallet: balance, history, transfers. */
export class WalletApi extends HttpApiGroup.make("wallet")
  .add(HttpApiEndpoint.get("get", "/api/v2/wallet").addSuccess(DataEnvelope(Wallet)))
  .add(
    HttpApiEndpoint.get("transactions", "/api/v2/wallet/transactions")
      .setUrlParams(Schema.Struct({
        cursor: Schema.optional(CursorParam(TransactionId)),
        per_page: Schema.optional(PerPageParam(100))
      }))
      .addSuccess(CursorPage(WalletTransaction))
  )
  .add(
    HttpApiEndpoint.get("transaction", "/api/v2/wallet/transactions/:id")
      .setPath(Schema.Struct({ id: PathId(TransactionId) }))
      .addSuccess(DataEnvelope(WalletTransaction))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("transfer", "/api/v2/wallet/transfers")
      .setHeaders(IdempotencyHeaders)
      .setPayload(TransferRequest)
      .addSuccess(DataEnvelope(WalletTransaction), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(InsufficientBalance))
      .addError(httpError(IdempotencyConflict))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** Treasury grants by tenant admins. */
export class AdminWalletApi extends HttpApiGroup.make("adminWallet")
  .add(
    HttpApiEndpoint.post("grant", "/api/v2/admin/wallet/grants")
      .setHeaders(IdempotencyHeaders)
      .setPayload(GrantRequest)
      .addSuccess(DataEnvelope(WalletTransaction), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(IdempotencyConflict))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
