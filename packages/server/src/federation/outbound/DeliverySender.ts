import { Duration, Effect, Either, Option } from "effect"
import { PartnerContexts } from "../partners/PartnerContexts.js"
import type { PartnerContext, WebhookDialect } from "../protocols/FederationProtocol.js"
import { partnerRequest } from "../protocols/PartnerHttp.js"
import { DeliveryConfig } from "./DeliveryConfig.js"
import { type ClaimedDelivery, DeliveryRepo, type SendingPartner } from "./DeliveryRepo.js"
import { isSuccess, type SignedPostResult } from "./SignedPost.js"
import { WebhookDialects } from "./WebhookDialects.js"

/** How one send ended: delivered, and whether the partner's breaker is open now. */
export interface SendOutcome {
  readonly delivered: boolean
  readonly breakerOpen: boolean
}

/** Where and how a partner's webhooks go: its URL, its protocol's dialect and what that dialect signs with. */
export interface DeliveryTarget {
  readonly url: string
  readonly dialect: WebhookDialect
  readonly context: PartnerContext
}

/** D13's body of a delivery, keys in D13's order: the stored body with the delivery's own id and event. */
export const d13Body = (delivery: ClaimedDelivery) => ({
  id: delivery.webhook_id,
  event: delivery.event,
  tenant: delivery.body.tenant,
  occurred_at: delivery.body.occurred_at,
  data: delivery.body.data
})

/** D13's body on the wire (a native partner's). */
export const wireBody = (delivery: ClaimedDelivery) => JSON.stringify(d13Body(delivery))

/**
 * Sends one claimed delivery (POST in the partner protocol's webhook dialect: body and signature) and records the
 * attempt, the delivery's new state and the partner's breaker. Used by the worker and by an admin's retry alike.
 */
export class DeliverySender extends Effect.Service<DeliverySender>()("FederationDeliverySender", {
  dependencies: [DeliveryRepo.Default, DeliveryConfig.Default, WebhookDialects.Default, PartnerContexts.Default],
  effect: Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const settings = yield* DeliveryConfig
    const dialects = yield* WebhookDialects
    const contexts = yield* PartnerContexts

    /**
     * Where the partner's webhooks go and how they are signed, or why they cannot go: no URL, or its credentials
     * (or settings) do not let its dialect sign.
     */
    const targetOf = (partner: SendingPartner): Effect.Effect<Either.Either<DeliveryTarget, string>> =>
      Effect.gen(function*() {
        const url = dialects.urlOf(partner)
        const dialect = dialects.dialectOf(partner.protocol_type)
        if (dialect === undefined) return Either.left(`A ${partner.protocol_type} partner takes no webhooks`)
        if (url === null) return Either.left("The partner has no webhook URL")
        const context = yield* contexts.anyTenant(partner.id)
        if (Option.isNone(context)) return Either.left("The partner is gone")
        const signable = dialect.headers(context.value, { url, body: "", webhookId: "", nowMillis: Date.now() })
        return signable === undefined
          ? Either.left(`The partner's credentials or settings cannot sign ${partner.protocol_type} webhooks`)
          : Either.right({ url, dialect, context: context.value })
      })

    /** One POST of the delivery in the partner's dialect, not recorded yet. */
    const attempt = (delivery: ClaimedDelivery, target: DeliveryTarget): Effect.Effect<SignedPostResult> =>
      Effect.suspend(() => {
        const body = JSON.stringify(target.dialect.body(target.context, d13Body(delivery)))
        const headers = target.dialect.headers(target.context, {
          url: target.url,
          body,
          webhookId: delivery.webhook_id,
          nowMillis: Date.now()
        })
        if (headers === undefined) {
          return Effect.succeed({ statusCode: null, latencyMs: 0, error: "the partner's credentials cannot sign it" })
        }
        return Effect.map(
          partnerRequest({
            method: "POST",
            url: target.url,
            headers,
            body,
            connectTimeoutMs: Duration.toMillis(settings.connectTimeout),
            timeoutMs: Duration.toMillis(settings.requestTimeout)
          }),
          (response): SignedPostResult => ({
            statusCode: response.statusCode,
            latencyMs: response.latencyMs,
            error: response.error
          })
        )
      }).pipe(
        Effect.withSpan("FederationDelivery.attempt", {
          attributes: { delivery_id: delivery.id, event: delivery.event }
        })
      )

    /** A failed attempt recorded (with the breaker); answers whether the partner's breaker is open now. */
    const recordFailure = (deliveryId: number, result: SignedPostResult) =>
      repo.recordFailure(deliveryId, result, settings)

    /** Sends one delivery and records the outcome at once (an admin's retry). */
    const send = (delivery: ClaimedDelivery, target: DeliveryTarget): Effect.Effect<SendOutcome> =>
      Effect.flatMap(attempt(delivery, target), (result): Effect.Effect<SendOutcome> =>
        isSuccess(result)
          ? Effect.as(repo.recordSuccesses([{ id: delivery.id, result }]), { delivered: true, breakerOpen: false })
          : Effect.map(recordFailure(delivery.id, result), (open) => ({ delivered: false, breakerOpen: open })))

    return { targetOf, attempt, recordSuccesses: repo.recordSuccesses, recordFailure, send, settings } as const
  })
}) {}
