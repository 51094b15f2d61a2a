import { Duration, Effect, Option } from "effect"
import { SecretBox } from "../../platform/SecretBox.js"
import { DeliveryConfig } from "./DeliveryConfig.js"
import { type ClaimedDelivery, DeliveryRepo, type SendingPartner } from "./DeliveryRepo.js"
import {
  decodeCredentialMap,
  isSuccess,
  type OutboundCredentials,
  outboundCredentials,
  signedPost,
  type SignedPostResult
} from "./SignedPost.js"

/** How one send ended: delivered, and whether the partner's breaker is open now. */
export interface SendOutcome {
  readonly delivered: boolean
  readonly breakerOpen: boolean
}

/** The body on the wire, keys in D13's order: the stored body with the delivery's own id and event. */
export const wireBody = (delivery: ClaimedDelivery) =>
  JSON.stringify({
    id: delivery.webhook_id,
    event: delivery.event,
    tenant: delivery.body.tenant,
    occurred_at: delivery.body.occurred_at,
    data: delivery.body.data
  })

/**
 * Sends one claimed delivery (signed POST, D13 headers) and records the attempt, the delivery's new state and the
 * partner's breaker. Used by the worker and by an admin's retry alike.
 */
export class DeliverySender extends Effect.Service<DeliverySender>()("FederationDeliverySender", {
  dependencies: [DeliveryRepo.Default, DeliveryConfig.Default, SecretBox.Default],
  effect: Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const settings = yield* DeliveryConfig
    const box = yield* SecretBox

    /** The partner's signing credentials (`api_key`, `signing_secret`), opened; none: we cannot sign for it. */
    const credentialsOf = (partner: SendingPartner): Effect.Effect<Option.Option<OutboundCredentials>> =>
      partner.credentials === null
        ? Effect.succeedNone
        : Effect.map(box.open(partner.credentials), (opened) => outboundCredentials(decodeCredentialMap(opened)))

    /** One signed POST of the delivery, not recorded yet. */
    const attempt = (delivery: ClaimedDelivery, url: string, credentials: OutboundCredentials) =>
      signedPost({
        url,
        body: wireBody(delivery),
        credentials,
        webhookId: delivery.webhook_id,
        connectTimeoutMs: Duration.toMillis(settings.connectTimeout),
        timeoutMs: Duration.toMillis(settings.requestTimeout)
      }).pipe(
        Effect.withSpan("FederationDelivery.attempt", {
          attributes: { delivery_id: delivery.id, event: delivery.event }
        })
      )

    /** A failed attempt recorded (with the breaker); answers whether the partner's breaker is open now. */
    const recordFailure = (deliveryId: number, result: SignedPostResult) =>
      repo.recordFailure(deliveryId, result, settings)

    /** Sends one delivery and records the outcome at once (an admin's retry). */
    const send = (
      delivery: ClaimedDelivery,
      url: string,
      credentials: OutboundCredentials
    ): Effect.Effect<SendOutcome> =>
      Effect.flatMap(attempt(delivery, url, credentials), (result): Effect.Effect<SendOutcome> =>
        isSuccess(result)
          ? Effect.as(repo.recordSuccesses([{ id: delivery.id, result }]), { delivered: true, breakerOpen: false })
          : Effect.map(recordFailure(delivery.id, result), (open) => ({ delivered: false, breakerOpen: open })))

    return { credentialsOf, attempt, recordSuccesses: repo.recordSuccesses, recordFailure, send, settings } as const
  })
}) {}
