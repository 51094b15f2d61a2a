import { CurrentTenant, type DomainEventOf, type DomainEventTag } from "@timebank/domain"
import { Effect, Option } from "effect"
import { EventAudience } from "../events/EventAudience.js"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { groupByTenant, type OutboxItem, subscriberLayer } from "../platform/OutboxPublisher.js"
import { TenantSql } from "../platform/TenantSql.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { communityRules } from "./CommunityRules.js"
import { type Delivery, Dispatcher } from "./Dispatcher.js"
import { eventRules } from "./EventRules.js"
import { federationRules } from "./FederationRules.js"
import { FreshBells } from "./FreshBells.js"
import { gamificationRules } from "./GamificationRules.js"
import { groupRules } from "./GroupRules.js"
import { matchingRules } from "./MatchingRules.js"
import { messagingRules } from "./MessagingRules.js"
import { socialRules } from "./SocialRules.js"

/** Every feature's notification rules: a feature that notifies adds its rule set here, one line. */
const RULES = [
  communityRules,
  eventRules,
  federationRules,
  gamificationRules,
  groupRules,
  matchingRules,
  messagingRules,
  socialRules
] as const

const TAGS = RULES.flatMap((rules) => rules.tags)
const rulesOf = new Map(RULES.flatMap((rules) => rules.tags.map((tag) => [tag, rules] as const)))

const deliveriesOf = (event: DomainEventOf<DomainEventTag>, source: string) =>
  rulesOf.get(event._tag)?.deliveries(event, source) ?? Effect.succeed<ReadonlyArray<Delivery>>([])

/**
 * The deliveries of some events of one community, written in one transaction (the names they show read in one
 * query), then their new bells handed, as one batch, to the channels that follow a bell once it committed.
 */
const dispatchFor = (tenantId: number, items: ReadonlyArray<OutboxItem<DomainEventTag>>) =>
  Effect.gen(function*() {
    const tenant = yield* Effect.flatMap(TenantDirectory, (tenants) => tenants.findById(tenantId))
    if (Option.isNone(tenant)) return
    const dispatcher = yield* Dispatcher
    const db = yield* TenantSql
    const fresh = yield* FreshBells
    const delivered = yield* Effect.gen(function*() {
      const deliveries: Array<Delivery> = []
      for (const { event, meta } of items) deliveries.push(...(yield* deliveriesOf(event, String(meta.id))))
      return yield* db.transaction(dispatcher.deliverAll(deliveries))
    }).pipe(Effect.provideService(CurrentTenant, tenant.value))
    // One batch for the channels, not one per delivery: each push claim is a transaction of its own.
    yield* fresh.publish({
      tenantId: tenant.value.id,
      notificationIds: delivered.notificationIds,
      userIds: delivered.userIds
    })
  })

/** A publisher batch of any communities: one transaction per community, in commit order within each. */
export const dispatchBatch = (items: ReadonlyArray<OutboxItem<DomainEventTag>>) =>
  Effect.forEach(groupByTenant(items), ([tenantId, list]) => dispatchFor(tenantId, list), { discard: true }).pipe(
    Effect.withSpan("NotificationDispatch.handleMany", { attributes: { events: items.length } })
  )

/**
 * The notifications feature's outbox subscriber: each domain event of D12's table becomes its deliveries, written
 * in one transaction of the event's community (bells and e-mail rows, idempotent per outbox event), and the new
 * bells go to the channels that follow a bell (realtime, push) once that transaction committed. A publisher batch
 * is handled at once, one transaction per community (a transfer alone raises four deliveries); when that fails,
 * the publisher hands its events over one by one.
 */
export const NotificationDispatchLive = subscriberLayer({
  name: "notifications-dispatch",
  tags: TAGS,
  handle: (event, meta) =>
    dispatchBatch([{ event, meta }]).pipe(
      Effect.withSpan("NotificationDispatch.handle", { attributes: { type: event._tag, event_id: meta.id } })
    ),
  handleMany: (items) => dispatchBatch(items)
})

/** What the dispatch needs besides the cluster: its services (FreshBells is shared with the channels). */
export const dispatchDependencies = [
  Dispatcher.Default,
  EventAudience.Default,
  GroupDirectory.Default,
  TenantDirectory.Default
] as const
