import { SqlClient } from "@effect/sql"
import { CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Audiences } from "../../identity/Audiences.js"
import { subscriberLayer } from "../../platform/OutboxPublisher.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { DeliveryRepo } from "./DeliveryRepo.js"
import { outboundWebhookOf, WEBHOOK_EVENT_TOGGLES, WEBHOOK_TAGS } from "./WebhookEvents.js"

/**
 * The outbound webhooks' outbox subscriber (decisions D13): each event of the spec's table becomes one delivery per
 * eligible partner of its community, written by ONE `INSERT … SELECT` that also checks, fresh, the platform switch,
 * the whitelist, the event's toggle, the partners and the members' opt-in. Idempotent on (partner, outbox event id):
 * a redelivered event writes nothing twice. The delivery worker sends them.
 */
export const WebhookSubscriberLive = subscriberLayer({
  name: "federation-webhooks",
  tags: WEBHOOK_TAGS,
  handle: (event, meta) =>
    Effect.gen(function*() {
      if (meta.tenantId === null) return
      const webhook = outboundWebhookOf(event)
      if (Option.isNone(webhook)) return
      const tenants = yield* TenantDirectory
      const tenant = yield* tenants.find({ _tag: "Id", id: String(meta.tenantId) })
      if (Option.isNone(tenant) || tenant.value.status !== "active") return
      const { data, event: name, members } = webhook.value
      const sql = yield* SqlClient.SqlClient
      const audiences = yield* Audiences
      const repo = yield* DeliveryRepo
      yield* Effect.gen(function*() {
        const optedIn = members.length === 0
          ? sql`TRUE`
          : sql`(SELECT count(*) FROM (${yield* audiences.federated(members)}) m) = ${new Set(members).size}`
        yield* repo.enqueue({
          tenant: { id: tenant.value.id, slug: tenant.value.slug },
          event: name,
          toggle: WEBHOOK_EVENT_TOGGLES[name],
          sourceKey: String(meta.id),
          occurredAt: meta.createdAt,
          data,
          optedIn
        })
      }).pipe(Effect.provideService(CurrentTenant, tenant.value))
    }).pipe(
      Effect.withSpan("FederationWebhooks.handle", { attributes: { type: event._tag, event_id: meta.id } })
    )
})
