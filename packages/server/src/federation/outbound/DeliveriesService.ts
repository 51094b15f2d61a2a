import {
  CurrentTenant,
  type DeliveriesParams,
  FederationStateConflict,
  NotFound,
  offsetMeta,
  WebhookDelivery
} from "@timebank/domain"
import { DateTime, Effect, Either, Option } from "effect"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { DeliveryRepo, type DeliveryRow } from "./DeliveryRepo.js"
import { DeliverySender } from "./DeliverySender.js"

export const DEFAULT_DELIVERIES_PER_PAGE = 20

const toView = (row: DeliveryRow): WebhookDelivery =>
  WebhookDelivery.make({
    id: row.id as WebhookDelivery["id"],
    webhook_id: row.webhook_id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: DateTime.unsafeFromDate(row.next_attempt_at),
    created_at: DateTime.unsafeFromDate(row.created_at),
    delivered_at: row.delivered_at === null ? null : DateTime.unsafeFromDate(row.delivered_at)
  })

const conflict = (message: string) => new FederationStateConflict({ message })

/**
 * A partner's outbound webhook deliveries for its community's admins (decisions D13a): the list, and the manual
 * retry that sends a `dead` or `retrying` delivery once now — even with the breaker open, whose success closes it.
 */
export class DeliveriesService extends Effect.Service<DeliveriesService>()("FederationDeliveriesService", {
  dependencies: [DeliveryRepo.Default, DeliverySender.Default],
  effect: Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const sender = yield* DeliverySender

    const partnerFound = (tenantId: number, partnerId: number) =>
      Effect.flatMap(
        repo.partnerOf(tenantId, partnerId),
        Option.match({
          onNone: () => Effect.fail(NotFound.of("Partner")),
          onSome: Effect.succeed
        })
      )

    /**
     * Sends delivery `deliveryId` of the partner once now and answers it afterwards. Refused (409 `INVALID_STATE`)
     * when it is `delivered` or `pending`, held by another sender right now, or the partner may not receive webhooks.
     */
    const retryIn = (tenantId: number, partnerId: number, deliveryId: number) =>
      Effect.gen(function*() {
        const partner = yield* partnerFound(tenantId, partnerId)
        const scope = { tenantId, partnerId }
        const current = yield* repo.find(deliveryId, scope)
        if (Option.isNone(current)) return yield* NotFound.of("Delivery")
        const status = current.value.status
        if (status === "delivered") return yield* conflict("The delivery was delivered already")
        if (status === "pending") return yield* conflict("The delivery has not been tried yet; it goes out shortly")
        if (partner.status !== "active" && partner.status !== "failed") {
          return yield* conflict(`The partner is ${partner.status}: it receives no webhooks`)
        }
        if (!partner.federation_on) return yield* conflict("Federation is off for this community")
        const target = yield* sender.targetOf(partner)
        if (Either.isLeft(target)) return yield* conflict(target.left)
        const claimed = yield* repo.claimForRetry(deliveryId, sender.settings.lease)
        if (Option.isNone(claimed)) return yield* conflict("The delivery is being sent right now")
        yield* sender.send(claimed.value, target.right)
        const after = yield* repo.find(deliveryId, scope)
        if (Option.isNone(after)) return yield* NotFound.of("Delivery")
        return toView(after.value)
      })

    const list = Effect.fn("FederationDeliveries.list")(function*(partnerId: number, params: DeliveriesParams) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      yield* partnerFound(tenant.id, partnerId)
      const { page, perPage } = offsetPage(params, DEFAULT_DELIVERIES_PER_PAGE)
      const { rows, total } = yield* repo.list(tenant.id, partnerId, { status: params.status, page, perPage })
      return { data: rows.map(toView), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const retry = Effect.fn("FederationDeliveries.retry")(function*(partnerId: number, deliveryId: number) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      return yield* retryIn(tenant.id, partnerId, deliveryId)
    }, requireTenantAdmin)

    /** The CLI's retry (`federation deliveries retry <id>`): the operator names only the delivery. */
    const retryDelivery = Effect.fn("FederationDeliveries.retryDelivery")(function*(deliveryId: number) {
      const owner = yield* repo.tenantOfDelivery(deliveryId)
      if (Option.isNone(owner)) return yield* NotFound.of("Delivery")
      return yield* retryIn(owner.value.tenant_id, owner.value.partner_id, deliveryId)
    })

    return { list, retry, retryDelivery } as const
  })
}) {}
