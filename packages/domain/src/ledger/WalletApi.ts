import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
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
  .annotate(OpenApi.Title, "Wallet")
  .annotate(OpenApi.Description, "The caller's wallet: balance, history, transfers")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/wallet")
      .annotate(OpenApi.Summary, "Get my wallet")
      .annotate(OpenApi.Description, "The caller's balance in hours")
      .addSuccess(DataEnvelope(Wallet))
  )
  .add(
    HttpApiEndpoint.get("transactions", "/api/v2/wallet/transactions")
      .annotate(OpenApi.Summary, "List my transactions")
      .annotate(OpenApi.Description, "The caller's transactions, newest first, with the direction from their side")
      .setUrlParams(Schema.Struct({
        cursor: Schema.optional(CursorParam(TransactionId)),
        per_page: Schema.optional(PerPageParam(100))
      }))
      .addSuccess(CursorPage(WalletTransaction))
  )
  .add(
    HttpApiEndpoint.get("transaction", "/api/v2/wallet/transactions/:id")
      .annotate(OpenApi.Summary, "Get one of my transactions")
      .annotate(OpenApi.Description, "A transaction the caller sent or received; any other is 404")
      .setPath(Schema.Struct({ id: PathId(TransactionId) }))
      .addSuccess(DataEnvelope(WalletTransaction))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("transfer", "/api/v2/wallet/transfers")
      .annotate(OpenApi.Summary, "Transfer credits")
      .annotate(
        OpenApi.Description,
        "Pays hours to another member of this community (`Idempotency-Key` honoured: a replay answers the " +
          "first outcome). The balance must cover the amount unless the community allows negative balances (422 " +
          "`INSUFFICIENT_BALANCE`)"
      )
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
  .annotate(OpenApi.Title, "Admin: wallet")
  .annotate(OpenApi.Description, "Treasury grants by tenant admins")
  .add(
    HttpApiEndpoint.post("grant", "/api/v2/admin/wallet/grants")
      .annotate(OpenApi.Summary, "Grant credits")
      .annotate(
        OpenApi.Description,
        "A tenant admin pays hours from the community's treasury to a member (`Idempotency-Key` honoured)"
      )
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
