import { CurrentTenant, type DomainEventOf } from "@timebank/domain"
import { Effect, Option } from "effect"
import { EventAudience } from "../events/EventAudience.js"
import { subscriberLayer } from "../platform/OutboxPublisher.js"
import { TenantSql } from "../platform/TenantSql.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { COMMUNITY_TAGS, communityDeliveries } from "./CommunityRules.js"
import { type Delivered, type Delivery, Dispatcher } from "./Dispatcher.js"
import { EVENT_TAGS, eventDeliveries } from "./EventRules.js"
import { FreshBells } from "./FreshBells.js"

const TAGS = [...COMMUNITY_TAGS, ...EVENT_TAGS] as const
type Tag = typeof TAGS[number]

const isEventTag = (event: DomainEventOf<Tag>): event is DomainEventOf<typeof EVENT_TAGS[number]> =>
  (EVENT_TAGS as ReadonlyArray<string>).includes(event._tag)

const deliveriesOf = (event: DomainEventOf<Tag>, source: string) =>
  isEventTag(event)
    ? eventDeliveries(event, source)
    : Effect.succeed(communityDeliveries(event as DomainEventOf<typeof COMMUNITY_TAGS[number]>, source))

/**
 * The notifications feature's outbox subscriber: each domain event of D12's table becomes its deliveries, written
 * in one transaction of the event's community (bells and e-mail rows, idempotent per outbox event), and the new
 * bells go to the channels that follow a bell (realtime, push) once that transaction committed.
 */
export const NotificationDispatchLive = subscriberLayer({
  name: "notifications-dispatch",
  tags: TAGS,
  handle: (event, meta) =>
    Effect.gen(function*() {
      if (meta.tenantId === null) return
      const tenant = yield* Effect.flatMap(TenantDirectory, (tenants) => tenants.findById(meta.tenantId!))
      if (Option.isNone(tenant)) return
      const dispatcher = yield* Dispatcher
      const db = yield* TenantSql
      const fresh = yield* FreshBells
      const delivered = yield* Effect.gen(function*() {
        const deliveries: ReadonlyArray<Delivery> = yield* deliveriesOf(event, String(meta.id))
        return yield* db.transaction(Effect.forEach(deliveries, dispatcher.deliver))
      }).pipe(Effect.provideService(CurrentTenant, tenant.value))
      yield* Effect.forEach(delivered, (batch: Delivered) =>
        fresh.publish({ tenantId: tenant.value.id, notificationIds: batch.notificationIds, userIds: batch.userIds }))
    }).pipe(Effect.withSpan("NotificationDispatch.handle", { attributes: { type: event._tag, event_id: meta.id } }))
})

/** What the dispatch needs besides the cluster: its services (FreshBells is shared with the channels). */
export const dispatchDependencies = [Dispatcher.Default, EventAudience.Default, TenantDirectory.Default] as const
