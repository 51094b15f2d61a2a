import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { IdempotencyConflict, InsufficientBalance } from "../ledger/LedgerErrors.js"
import { TransactionsRead, TransactionsWrite } from "./FederationPolicies.js"
import {
  CreateFederatedTransaction,
  FederatedTransaction,
  FederatedTransactionPath,
  FederatedWritesListParams
} from "./FederationWrites.js"

const TRANSACTIONS = "/api/v1/federation/transactions"

/**
 * Credits partners send to our members (decisions D13, D13a), paid from the partner's clearing account through the
 * community's ledger. Each route declares its federation access policy (toggle `transactions`).
 */
export class FederationTransactionsApi extends HttpApiGroup.make("federationTransactions")
  .annotate(OpenApi.Title, "Federation: transactions")
  .annotate(
    OpenApi.Description,
    "A partner community credits one of our opted-in members from its clearing account, and reads back the " +
      "transactions it sent. The clearing account may go below zero down to −`settings.credit_limit` hours " +
      "(default 100)"
  )
  .add(
    HttpApiEndpoint.post("create", TRANSACTIONS)
      .annotate(OpenApi.Summary, "Credit a member")
      .setPayload(CreateFederatedTransaction)
      .addSuccess(DataEnvelope(FederatedTransaction), { status: 201 })
      .addSuccess(
        DataEnvelope(FederatedTransaction).annotations({ description: "The same `external_id` and body again" }),
        { status: 200 }
      )
      .addError(httpError(NotFound))
      .addError(httpError(InsufficientBalance))
      .addError(httpError(IdempotencyConflict))
      .annotate(
        OpenApi.Description,
        "Needs `transactions:write` and a key bound to an active partner. Idempotent per partner on `external_id`: " +
          "the same body again answers 200 with the first transaction, a different body 409 " +
          "`IDEMPOTENCY_CONFLICT`. A recipient who is not an active, opted-in member here is 404; a transfer past " +
          "the partner's credit limit is 422 `INSUFFICIENT_BALANCE`"
      )
      .middleware(TransactionsWrite)
  )
  .add(
    HttpApiEndpoint.get("list", TRANSACTIONS)
      .annotate(OpenApi.Summary, "List the partner's transactions")
      .setUrlParams(FederatedWritesListParams)
      .addSuccess(CursorPage(FederatedTransaction))
      .annotate(
        OpenApi.Description,
        "The transactions the calling partner sent, newest first (`transactions:read`; a key bound to a partner)"
      )
      .middleware(TransactionsRead)
  )
  .add(
    HttpApiEndpoint.get("get", `${TRANSACTIONS}/:id`)
      .annotate(OpenApi.Summary, "Get one of the partner's transactions")
      .setPath(FederatedTransactionPath)
      .addSuccess(DataEnvelope(FederatedTransaction))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Another partner's transaction is 404")
      .middleware(TransactionsRead)
  )
{}
