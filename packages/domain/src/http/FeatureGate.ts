import { HttpApiMiddleware } from "@effect/platform"
import type { Feature } from "../tenancy/Tenant.js"
import { FeatureDisabled, httpError } from "./ApiError.js"

type FeatureGateOptions = { readonly failure: ReturnType<typeof httpError<FeatureDisabled>> }

/** A middleware tag made by {@link FeatureGate}: the feature switch travels with the contract. */
export type FeatureGateTag<Self, Name extends string> =
  & HttpApiMiddleware.TagClass<Self, Name, FeatureGateOptions>
  & { readonly feature: Feature }

/**
 * A feature switch (spec "Tenant context" §5) declared in the contract, as a middleware of the groups it gates:
 *
 *   export class ListingsFeature extends FeatureGate<ListingsFeature>()("ListingsFeature", "listings") {}
 *   HttpApiGroup.make("listings").add(...).middleware(ListingsFeature).middleware(TenantMiddleware)
 *
 * While the community has the feature off, every route of the group answers 403 `FEATURE_DISABLED`. The server
 * builds the middleware from the tag (`featureGateLayer(ListingsFeature)` in `HttpLive`). Add it to the group
 * before any other middleware: the middleware added last runs first, and group middleware runs after endpoint
 * middleware, so the gate runs after the tenant, the caller and the rate limits, as the check in the services did.
 */
export const FeatureGate =
  <Self>() => <const Name extends string>(name: Name, feature: Feature): FeatureGateTag<Self, Name> => {
    const Tag = HttpApiMiddleware.Tag<Self>()(name, { failure: httpError(FeatureDisabled) })
    return Object.assign(Tag, { feature }) as FeatureGateTag<Self, Name>
  }

/** Gates the routes of offers and requests. */
export class ListingsFeature extends FeatureGate<ListingsFeature>()("ListingsFeature", "listings") {}

/** Gates the routes of organisations, opportunities, applications, hours and reviews. */
export class VolunteeringFeature extends FeatureGate<VolunteeringFeature>()("VolunteeringFeature", "volunteering") {}

/** Gates the routes of events: core, RSVP, recurrence, series, reminders, images, calendar and admin. */
export class EventsFeature extends FeatureGate<EventsFeature>()("EventsFeature", "events") {}

/** Gates the routes of polls. */
export class PollsFeature extends FeatureGate<PollsFeature>()("PollsFeature", "polls") {}

/** Gates the routes of direct messages. */
export class MessagesFeature extends FeatureGate<MessagesFeature>()("MessagesFeature", "messages") {}

/** Gates the routes of connections between members. */
export class ConnectionsFeature extends FeatureGate<ConnectionsFeature>()("ConnectionsFeature", "connections") {}

/** Gates the routes of groups: groups, memberships, the chatroom and group types. */
export class GroupsFeature extends FeatureGate<GroupsFeature>()("GroupsFeature", "groups") {}

/** Gates the routes of the feed: posts, likes and comments. */
export class FeedFeature extends FeatureGate<FeedFeature>()("FeedFeature", "feed") {}

/** Gates the public help pages (FAQs). */
export class HelpFeature extends FeatureGate<HelpFeature>()("HelpFeature", "help") {}

/** Gates the public blog. */
export class BlogFeature extends FeatureGate<BlogFeature>()("BlogFeature", "blog") {}

/** Gates members' badges and experience points. */
export class GamificationFeature extends FeatureGate<GamificationFeature>()("GamificationFeature", "gamification") {}

/** Gates members' match suggestions. */
export class MatchingFeature extends FeatureGate<MatchingFeature>()("MatchingFeature", "matching") {}
