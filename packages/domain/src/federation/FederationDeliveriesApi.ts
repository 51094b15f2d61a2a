import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId, RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { FederationStateConflict } from "./FederationErrors.js"
import { FederationPartnerId } from "./FederationPartnersApi.js"

export const FederationDeliveryId = RecordId.pipe(Schema.brand("FederationDeliveryId"))
export type FederationDeliveryId = typeof FederationDeliveryId.Type

/** `pending` (not tried yet), `delivered` (a 2xx), `retrying` (failed, tried again later), `dead` (8 attempts). */
export const WebhookDeliveryStatus = Schema.Literal("pending", "delivered", "retrying", "dead")
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

/** One outbound webhook to one partner (decisions D13a "Deliveries"). */
export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: FederationDeliveryId,
  webhook_id: Schema.String.annotations({
    description: "The webhook's `id` (a UUID) as the partner receives it; a retry keeps it"
  }),
  event: Schema.String.annotations({ description: "`listing.created`, `member.opted_out`, …" }),
  status: WebhookDeliveryStatus,
  attempts: Schema.Int,
  last_status_code: Schema.NullOr(Schema.Int).annotations({
    description: "The partner's HTTP status at the last attempt; null: none yet, or no answer"
  }),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.DateTimeUtc.annotations({
    description: "When the next attempt is due (`pending`, `retrying`)"
  }),
  created_at: Schema.DateTimeUtc,
  delivered_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

export const DeliveriesParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(
    WebhookDeliveryStatus.annotations({
      message: () => ({ message: "must be pending, delivered, retrying or dead", override: true })
    })
  ).annotations({ description: "Only deliveries with this status" })
})
export type DeliveriesParams = typeof DeliveriesParams.Type

export const PartnerDeliveriesPath = Schema.Struct({ id: PathId(FederationPartnerId) })
export const PartnerDeliveryPath = Schema.Struct({
  id: PathId(FederationPartnerId),
  deliveryId: PathId(FederationDeliveryId)
})

const DELIVERIES = "/api/v2/admin/federation/partners/:id/deliveries"

/** A partner's outbound webhooks and their admin retry (decisions D13, D13a): tenant admins, super-admins. */
export class FederationDeliveriesApi extends HttpApiGroup.make("federationDeliveries")
  .annotate(OpenApi.Title, "Admin: federation webhook deliveries")
  .annotate(
    OpenApi.Description,
    "The webhooks sent to a partner (signed POSTs to its `webhook_url`), their attempts' outcome, and a manual " +
      "retry; tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.get("list", DELIVERIES)
      .annotate(OpenApi.Summary, "List a partner's webhook deliveries")
      .annotate(OpenApi.Description, "Newest first, optionally of one status")
      .setPath(PartnerDeliveriesPath)
      .setUrlParams(DeliveriesParams)
      .addSuccess(OffsetPage(WebhookDelivery))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("retry", `${DELIVERIES}/:deliveryId/retry`)
      .annotate(OpenApi.Summary, "Retry a webhook delivery")
      .annotate(
        OpenApi.Description,
        "Sends a `dead` or `retrying` delivery once now, with the same webhook id, even while the partner's " +
          "breaker is open (a success closes it); answers the delivery after the attempt. `delivered` or " +
          "`pending` deliveries, one being sent right now, a suspended partner, one without a webhook URL or " +
          "signing credentials, or federation off for the community → 409 `INVALID_STATE`"
      )
      .setPath(PartnerDeliveryPath)
      .addSuccess(DataEnvelope(WebhookDelivery))
      .addError(httpError(NotFound))
      .addError(httpError(FederationStateConflict))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
