import { Schema } from "effect"
import * as E from "./DomainEvents.js"

/**
 * Every domain event the service records in its outbox. A row's `event_type` is the event's `_tag` and its
 * `payload` the encoded event without `_tag`. Never drop a member while rows of that tag may still be delivered:
 * rename or retire an event by adding a new one.
 */
export const DomainEvent = Schema.Union(
  E.TenantCreated,
  E.UserRegistered,
  E.UserCreated,
  E.UserUpdated,
  E.UserRoleChanged,
  E.UserErased,
  E.UserApproved,
  E.UserSuspended,
  E.UserBanned,
  E.UserReactivated,
  E.UserPasswordSet,
  E.UserPasswordReset,
  E.UserSuperAdminChanged,
  E.UserImpersonated,
  E.UserTwoFactorReset,
  E.MemberProfileUpdated,
  E.MemberFederationOptedOut,
  E.TransactionCompleted,
  E.ListingCreated,
  E.ListingUpdated,
  E.ListingDeleted,
  E.CategoryCreated,
  E.CategoryUpdated,
  E.CategoryDeleted,
  E.AttributeCreated,
  E.AttributeUpdated,
  E.AttributeDeleted,
  E.OrganisationRegistered,
  E.OrganisationUpdated,
  E.OrganisationStatusChanged,
  E.OrganisationAutoPayChanged,
  E.VolOpportunityCreated,
  E.VolOpportunityUpdated,
  E.VolApplicationCreated,
  E.VolApplicationReviewed,
  E.VolHoursLogged,
  E.VolHoursReviewed,
  E.ReviewCreated,
  E.CommunityEventCreated,
  E.CommunityEventUpdated,
  E.EventCancelled,
  E.EventDeleted,
  E.EventSeriesCreated,
  E.RsvpChanged,
  E.WaitlistPromoted,
  E.CheckedIn,
  E.EventReminderDue,
  E.PollCreated,
  E.MessageSent,
  E.ConnectionRequested,
  E.ConnectionAccepted,
  E.SafeguardingFlagRaised,
  E.FeedPostCreated,
  E.FeedCommentCreated,
  E.GroupCreated,
  E.GroupUpdated,
  E.GroupDeleted,
  E.GroupMemberJoined,
  E.GroupMemberLeft,
  E.GroupChatroomMessageSent,
  E.FederatedListingReceived,
  E.FederatedReviewReceived,
  E.FederatedMessageReceived
)
export type DomainEvent = typeof DomainEvent.Type
export type DomainEventTag = DomainEvent["_tag"]
/** The domain event of one tag. */
export type DomainEventOf<K extends DomainEventTag> = Extract<DomainEvent, { readonly _tag: K }>
