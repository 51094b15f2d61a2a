import type { CurrentTenant, DomainEventOf, DomainEventTag } from "@timebank/domain"
import { Effect } from "effect"
import type { Delivery } from "./Dispatcher.js"

/**
 * One feature's notification rules: the domain events it notifies of and the deliveries each raises (decisions
 * D12's table). `source` is the event's outbox id. The dispatch serves every rule set in `NotificationDispatch`.
 */
export interface NotificationRules<R = never> {
  readonly tags: ReadonlyArray<DomainEventTag>
  readonly deliveries: (
    event: DomainEventOf<DomainEventTag>,
    source: string
  ) => Effect.Effect<ReadonlyArray<Delivery>, never, R | CurrentTenant>
}

/** Rules for the events of `tags`; `deliveries` answers plain deliveries or an effect that reads who gets them. */
export const notificationRules = <const Tag extends DomainEventTag, R = never>(
  tags: ReadonlyArray<Tag>,
  deliveries: (
    event: DomainEventOf<Tag>,
    source: string
  ) => ReadonlyArray<Delivery> | Effect.Effect<ReadonlyArray<Delivery>, never, R | CurrentTenant>
): NotificationRules<R> => ({
  tags,
  deliveries: (event, source) => {
    const out = deliveries(event as DomainEventOf<Tag>, source)
    return Effect.isEffect(out) ? out : Effect.succeed(out)
  }
})
