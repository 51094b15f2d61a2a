import type { DomainEventOf } from "@timebank/domain"
import { CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Audiences } from "../../identity/Audiences.js"
import { type OutboxMeta, subscriberLayer } from "../../platform/OutboxPublisher.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { DeliveryRepo } from "./DeliveryRepo.js"
import {
  type OutboundWebhook,
  outboundWebhookOf,
  WEBHOOK_EVENT_TOGGLES,
  WEBHOOK_TAGS,
  type WebhookTag
} from "./WebhookEvents.js"

type Item = { readonly event: DomainEventOf<WebhookTag>; readonly meta: OutboxMeta }

/**
 * Writes the deliveries of a run of events: per community, ONE `INSERT … SELECT` for all its webhooks, which also
 * checks, fresh, the platform switch, the whitelist, each event's toggle, the partners and the members' opt-in
 * (identity's `Audiences.federated`, as SQL).
 */
const enqueueAll = (items: ReadonlyArray<Item>) =>
  Effect.gen(function*() {
    const tenants = yield* TenantDirectory
    const audiences = yield* Audiences
    const repo = yield* DeliveryRepo
    const byTenant = new Map<number, Array<{ readonly webhook: OutboundWebhook; readonly meta: OutboxMeta }>>()
    for (const { event, meta } of items) {
      const webhook = outboundWebhookOf(event)
      if (meta.tenantId === null || Option.isNone(webhook)) continue
      const list = byTenant.get(meta.tenantId) ?? []
      list.push({ webhook: webhook.value, meta })
      byTenant.set(meta.tenantId, list)
    }
    for (const [tenantId, list] of byTenant) {
      const tenant = yield* tenants.find({ _tag: "Id", id: String(tenantId) })
      if (Option.isNone(tenant) || tenant.value.status !== "active") continue
      const members = [...new Set(list.flatMap((w) => w.webhook.members))]
      yield* Effect.gen(function*() {
        yield* repo.enqueue({
          tenant: { id: tenant.value.id, slug: tenant.value.slug },
          webhooks: list.map(({ meta, webhook }) => ({
            event: webhook.event,
            toggle: WEBHOOK_EVENT_TOGGLES[webhook.event],
            sourceKey: String(meta.id),
            occurredAt: meta.createdAt,
            data: webhook.data,
            members: webhook.members
          })),
          optedIn: members.length === 0 ? repo.nobody : yield* audiences.federated(members)
        })
      }).pipe(Effect.provideService(CurrentTenant, tenant.value))
    }
  }).pipe(Effect.withSpan("FederationWebhooks.enqueue", { attributes: { events: items.length } }))

/**
 * The outbound webhooks' outbox subscriber (decisions D13): each event of the spec's table becomes one delivery per
 * eligible partner of its community. A publisher batch (up to a hundred events) is written together; an event
 * handed over again (at-least-once) writes nothing twice: rows are unique per (partner, outbox event id). The
 * delivery worker sends them.
 */
export const WebhookSubscriberLive = subscriberLayer({
  name: "federation-webhooks",
  tags: WEBHOOK_TAGS,
  handle: (event, meta) => enqueueAll([{ event, meta }]),
  handleMany: enqueueAll
})
