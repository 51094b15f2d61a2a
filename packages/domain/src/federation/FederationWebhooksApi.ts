import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { InsufficientBalance } from "../ledger/LedgerErrors.js"
import { WebhooksSigned } from "./FederationPolicies.js"
import { RECEIVE_DESCRIPTION, ReceivedWebhook, WebhookReceipt } from "./WebhookReceive.js"

const WEBHOOKS = "/api/v1/federation/webhooks"

export const WebhookTestResult = Schema.Struct({ ok: Schema.Literal(true) })

/**
 * Partners' webhooks to us (decisions D13, D13a): HMAC-signed only; the platform switch and the community's
 * whitelist apply, no toggle and no scope.
 */
export class FederationWebhooksApi extends HttpApiGroup.make("federationWebhooks")
  .annotate(OpenApi.Title, "Federation: webhooks")
  .annotate(
    OpenApi.Description,
    "Signed calls of partner platforms: the four `X-Federation-*` headers (HMAC-SHA256 with the key's signing " +
      "secret over `METHOD\\nPATH\\nTIMESTAMP\\nNONCE\\nBODY`), optionally with the API key as bearer"
  )
  .add(
    HttpApiEndpoint.post("test", `${WEBHOOKS}/test`)
      .annotate(OpenApi.Summary, "Reachability test")
      .annotate(OpenApi.Description, "Answers `ok` when the signature holds; the body is signed but not read")
      .addSuccess(DataEnvelope(WebhookTestResult))
      .middleware(WebhooksSigned)
  )
  .add(
    HttpApiEndpoint.post("receive", `${WEBHOOKS}/receive`)
      .annotate(OpenApi.Summary, "Receive a partner's webhook")
      .setPayload(ReceivedWebhook)
      .addSuccess(DataEnvelope(WebhookReceipt))
      .addError(httpError(InsufficientBalance))
      .annotate(OpenApi.Description, RECEIVE_DESCRIPTION)
      .middleware(WebhooksSigned)
  )
{}
