import { Layer } from "effect"
import { Audiences } from "../../identity/Audiences.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { DeliveriesHttpLive } from "./DeliveriesHttp.js"
import { DeliveriesService } from "./DeliveriesService.js"
import { DeliveryRepo } from "./DeliveryRepo.js"
import { DeliveryWorkerLive } from "./DeliveryWorker.js"
import { WebhookSubscriberLive } from "./WebhookSubscriber.js"

export { DeliveriesService } from "./DeliveriesService.js"
export { DeliveryConfig, type DeliverySettings } from "./DeliveryConfig.js"
export { wireBody } from "./DeliverySender.js"
export {
  eventsAllowedBy,
  outboundWebhookOf,
  WEBHOOK_EVENT_TOGGLES,
  WEBHOOK_EVENTS,
  WEBHOOK_TAGS,
  type WebhookEventName
} from "./WebhookEvents.js"
export { WebhookJobsLive } from "./WebhookJobs.js"

/** The admin routes of a partner's deliveries. */
export const OutboundHttpLive = DeliveriesHttpLive.pipe(Layer.provide(DeliveriesService.Default))

/** Outbound webhooks on the cluster: the outbox subscriber that writes deliveries, and the worker that sends them. */
export const OutboundClusterLive = Layer.mergeAll(
  WebhookSubscriberLive.pipe(
    Layer.provide(Layer.mergeAll(Audiences.Default, DeliveryRepo.Default, TenantDirectory.Default))
  ),
  DeliveryWorkerLive
)
