import { CurrentTenant, type DomainEventOf } from "@timebank/domain"
import { Effect, Option } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { subscriberLayer } from "../platform/OutboxPublisher.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { FeedPostRepo } from "./FeedPostRepo.js"

const TAGS = ["CommunityEventCreated", "EventDeleted"] as const

/** An event's activity record: in the event's group when it names one of this community, else community-wide. */
const eventCreated = (event: DomainEventOf<"CommunityEventCreated">) =>
  Effect.gen(function*() {
    const groupId = event.event.group_id
    const group = groupId === null
      ? Option.none()
      : yield* Effect.flatMap(GroupDirectory, (groups) => groups.find(groupId))
    yield* Effect.flatMap(FeedPostRepo, (posts) =>
      posts.insertActivity({
        authorId: event.user_id,
        groupId: Option.match(group, { onNone: () => null, onSome: (g) => g.id }),
        activityType: "event_created",
        subjectType: "event",
        subjectId: event.event_id,
        body: event.event.title
      }))
  })

/** A deleted event (and its deleted occurrences) leaves no activity record pointing at nothing. */
const eventDeleted = (event: DomainEventOf<"EventDeleted">) =>
  Effect.flatMap(
    FeedPostRepo,
    (posts) => posts.deleteActivities("event", [event.event_id, ...event.deleted_occurrence_ids])
  )

/**
 * The feed's outbox subscriber (spec: `CommunityEventCreated` → "feed activity record"): a new event becomes an
 * `activity` post by its creator, once (the unique index `feed_posts_activity` makes a redelivery write nothing),
 * while the community has the feed on; a deleted event takes its record with it.
 */
export const FeedActivityLive = subscriberLayer({
  name: "feed-activity",
  tags: TAGS,
  handle: (event, meta) =>
    Effect.gen(function*() {
      if (meta.tenantId === null) return
      const tenant = yield* Effect.flatMap(TenantDirectory, (tenants) => tenants.findById(meta.tenantId!))
      if (Option.isNone(tenant)) return
      const work = event._tag === "CommunityEventCreated"
        ? (tenant.value.isEnabled("feed") ? eventCreated(event) : Effect.void)
        : eventDeleted(event)
      yield* Effect.provideService(work, CurrentTenant, tenant.value)
    }).pipe(Effect.withSpan("FeedActivity.handle", { attributes: { type: event._tag, event_id: meta.id } }))
})
