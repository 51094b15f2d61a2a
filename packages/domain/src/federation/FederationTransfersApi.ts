import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { Authentication } from "../identity/Authentication.js"
import { Credits } from "../ledger/Credits.js"
import { IdempotencyConflict, InsufficientBalance } from "../ledger/LedgerErrors.js"
import { TransactionId } from "../ledger/Transaction.js"
import { IdempotencyHeaders } from "../ledger/WalletApi.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AmountNotRepresentable,
  FederationDisabled,
  FederationOptInRequired,
  PartnerNotActive
} from "./FederationErrors.js"
import { FederationPartnerId } from "./FederationPartnersApi.js"
import { FEDERATED_DESCRIPTION_MAX, FederatedWritesListParams } from "./FederationWrites.js"

/** The partner could not be read before any money moved (Komunitin's currency, say): nothing was recorded. */
export class PartnerUnavailable
  extends ApiError<PartnerUnavailable>()("PartnerUnavailable", "PARTNER_UNAVAILABLE", 502)
{}

export const FederationTransferId = RecordId.pipe(Schema.brand("FederationTransferId"))
export type FederationTransferId = typeof FederationTransferId.Type

export const FederationTransferPath = Schema.Struct({ id: PathId(FederationTransferId) })

export const RECIPIENT_MAX = 200

/** `POST /api/v2/federation/transfers` (decisions D16). */
export const CreateFederationTransfer = Schema.Struct({
  partner_id: FederationPartnerId.annotations({ description: "An active partner of this community" }),
  recipient: TrimmedText(1, RECIPIENT_MAX).annotations({
    description: "The partner's member or account, in the partner's protocol: native and timeoverflow a member id " +
      "(digits, > 0), komunitin an account UUID, credit_commons a path `a/b…`"
  }),
  amount: Credits,
  description: Schema.optionalWith(TrimmedText(0, FEDERATED_DESCRIPTION_MAX), { default: () => "" })
})
export type CreateFederationTransfer = typeof CreateFederationTransfer.Type

export const FederationTransferStatus = Schema.Literal("pending", "completed", "failed")
export type FederationTransferStatus = typeof FederationTransferStatus.Type

export const FederationTransferFailure = Schema.Struct({
  http_status: Schema.NullOr(Schema.Int).annotations({ description: "The partner's status; null: no answer" }),
  detail: Schema.String.annotations({ description: "The partner's answer quoted, or what happened instead" })
}).annotations({ identifier: "FederationTransferFailure" })

/** A transfer the caller sent to a partner's member. */
export class FederationTransfer extends Schema.Class<FederationTransfer>("FederationTransfer")({
  id: FederationTransferId,
  uuid: Schema.UUID.annotations({ description: "Sent to the partner as its idempotency key / transfer id" }),
  partner_id: FederationPartnerId,
  recipient: Schema.String,
  amount: Schema.Number.annotations({ description: "Hours" }),
  description: Schema.String,
  status: FederationTransferStatus.annotations({
    description: "`completed`: the partner accepted it; `failed`: it did not, and the debit was reversed; " +
      "`pending`: being sent"
  }),
  remote_id: Schema.NullOr(Schema.String).annotations({ description: "The partner's id of the transfer" }),
  remote_amount: Schema.NullOr(Schema.String).annotations({
    description: "The amount in the partner's units, as sent (seconds, minor units, hours)"
  }),
  transaction_id: Schema.NullOr(TransactionId).annotations({ description: "The debit in the caller's wallet" }),
  reversal_transaction_id: Schema.NullOr(TransactionId).annotations({
    description: "The compensating credit of a failed transfer"
  }),
  failure: Schema.NullOr(FederationTransferFailure),
  outcome_unknown: Schema.Boolean.annotations({
    description: "The call went out and no answer came: the partner may have credited its member all the same"
  }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const TRANSFERS = "/api/v2/federation/transfers"

/** A member's transfers to members of partner communities (decisions D16), in each partner's protocol. */
export class FederationTransfersApi extends HttpApiGroup.make("federationTransfers")
  .annotate(OpenApi.Title, "Federation: my transfers to partners")
  .annotate(
    OpenApi.Description,
    "An opted-in member pays hours to a member of an active partner community: the member's wallet is debited " +
      "into the partner's clearing account, the partner is called in its own protocol, and a refusal reverses the " +
      "debit"
  )
  .add(
    HttpApiEndpoint.post("create", TRANSFERS)
      .annotate(OpenApi.Summary, "Send hours to a partner's member")
      .setHeaders(IdempotencyHeaders)
      .setPayload(CreateFederationTransfer)
      .addSuccess(DataEnvelope(FederationTransfer), { status: 201 })
      .addError(httpError(FederationOptInRequired))
      .addError(httpError(NotFound))
      .addError(httpError(PartnerNotActive))
      .addError(httpError(IdempotencyConflict))
      .addError(httpError(AmountNotRepresentable))
      .addError(httpError(InsufficientBalance))
      .addError(httpError(PartnerUnavailable))
      .addError(httpError(FederationDisabled))
      .annotate(
        OpenApi.Description,
        "Needs federation on for `transactions` (503 `FEDERATION_DISABLED`), the caller opted in (403 " +
          "`FEDERATION_OPT_IN_REQUIRED`), an active partner (409 `PARTNER_NOT_ACTIVE`), a recipient in the " +
          "partner's form (422 field `recipient`) and an amount the partner can express exactly (422 " +
          "`AMOUNT_NOT_REPRESENTABLE`). The wallet must cover the amount (422 `INSUFFICIENT_BALANCE`, nothing " +
          "recorded). The answer is the transfer after the partner's call: `completed`, or `failed` with the " +
          "partner's answer and the reversal. `Idempotency-Key` honoured: a replay answers the first transfer, a " +
          "different body 409 `IDEMPOTENCY_CONFLICT`"
      )
  )
  .add(
    HttpApiEndpoint.get("list", TRANSFERS)
      .annotate(OpenApi.Summary, "List my transfers to partners")
      .setUrlParams(FederatedWritesListParams)
      .addSuccess(CursorPage(FederationTransfer))
      .annotate(OpenApi.Description, "The caller's transfers to partners' members, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", `${TRANSFERS}/:id`)
      .annotate(OpenApi.Summary, "Get one of my transfers to partners")
      .setPath(FederationTransferPath)
      .addSuccess(DataEnvelope(FederationTransfer))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Another member's transfer is 404")
  )
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
