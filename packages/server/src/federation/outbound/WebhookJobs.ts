import { Effect, Layer } from "effect"
import { registerJobs } from "../../platform/JobRegistry.js"
import { DeliveryRepo } from "./DeliveryRepo.js"

const BATCH = 500

/**
 * `webhooks.retry` (decisions D17 "Jobs"), on demand: the community's outbound webhooks waiting for a later attempt
 * are made due now, a batch at a time; the delivery worker (`DeliveryWorkerLive`) sends them on its next poll, with
 * the partner's breaker and switches deciding as always. Its items are the deliveries made due. `dead` deliveries
 * stay dead: an admin retries them one by one.
 */
export const WebhookJobsLive = registerJobs(Effect.map(DeliveryRepo, (repo) => [{
  id: "webhooks.retry",
  description: "Makes the community's outbound webhook deliveries waiting for a retry due now",
  schedule: null,
  run: ({ at, tenantId }) =>
    Effect.gen(function*() {
      let total = 0
      for (;;) {
        const n = yield* repo.makeDue(tenantId, at, BATCH)
        total += n
        if (n < BATCH) return total
      }
    })
}])).pipe(Layer.provide(DeliveryRepo.Default))
