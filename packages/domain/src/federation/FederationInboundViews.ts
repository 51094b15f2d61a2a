import { Schema } from "effect"
import { EventCursor, EventId, EventStatus } from "../events/Event.js"
import { GroupId } from "../groups/Group.js"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { CategoryId } from "../listings/Category.js"
import { ListingId, ListingType } from "../listings/Listing.js"
import { OpportunityId } from "../volunteering/Opportunity.js"
import { OrganisationId } from "../volunteering/Organisation.js"
import { ReviewId } from "../volunteering/Review.js"

/**
 * What partners read at `/api/v1/federation/*` (decisions D13a, "What crosses"): stable snake_case shapes of their
 * own, never the members' API views, so that a field added for members does not leak to partners. Only opted-in
 * members are named; e-mail, phone, role and balance never appear.
 */

/** An opted-in member: exactly the fields D13a lets cross. */
export class FederationMember extends Schema.Class<FederationMember>("FederationMember")({
  id: UserId,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  skills: Schema.Array(Schema.String).annotations({
    description: "The categories of the member's active offers, alphabetically"
  }),
  location: Schema.NullOr(Schema.String)
}) {}

/** An opted-in member named by a record (a listing's owner, an event's organiser). */
export const FederationMemberRef = Schema.Struct({
  id: UserId,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String)
}).annotations({ identifier: "FederationMemberRef" })
export type FederationMemberRef = typeof FederationMemberRef.Type

export const FederationCategory = Schema.Struct({ id: CategoryId, name: Schema.String }).annotations({
  identifier: "FederationCategory"
})

/** An active listing of an opted-in member. */
export class FederationListing extends Schema.Class<FederationListing>("FederationListing")({
  id: ListingId,
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  category: Schema.NullOr(FederationCategory),
  hours_estimate: Schema.NullOr(Schema.Number),
  location: Schema.NullOr(Schema.String),
  owner: FederationMemberRef,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/** An event its organiser shared with partners (`federated_visibility` other than `none`). */
export class FederationEvent extends Schema.Class<FederationEvent>("FederationEvent")({
  id: EventId,
  title: Schema.String,
  description: Schema.String,
  start_time: Schema.DateTimeUtc,
  end_time: Schema.NullOr(Schema.DateTimeUtc),
  location: Schema.NullOr(Schema.String),
  is_online: Schema.Boolean,
  max_attendees: Schema.NullOr(Schema.Int),
  image_url: Schema.NullOr(Schema.String),
  status: EventStatus.annotations({ description: "`cancelled` events are no longer listed but can still be read" }),
  federated_visibility: Schema.String,
  organiser: Schema.NullOr(FederationMemberRef).annotations({
    description: "Null unless the organiser opted in to federation"
  }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/** A public, active group whose owner opted in. */
export class FederationGroup extends Schema.Class<FederationGroup>("FederationGroup")({
  id: GroupId,
  name: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String),
  member_count: Schema.Int.annotations({ description: "Active members, the owner included" }),
  created_at: Schema.DateTimeUtc
}) {}

export const FederationReviewer = Schema.Struct({
  id: Schema.NullOr(UserId).annotations({ description: "The local reviewer; null for a partner's member" }),
  name: Schema.String
}).annotations({ identifier: "FederationReviewer" })

/** A published review of an opted-in member. */
export class FederationReview extends Schema.Class<FederationReview>("FederationReview")({
  id: ReviewId,
  member_id: UserId,
  rating: Schema.Int,
  comment: Schema.String,
  is_federated: Schema.Boolean.annotations({ description: "Written by a partner's member" }),
  reviewer: Schema.NullOr(FederationReviewer).annotations({
    description: "Null for a local reviewer who has not opted in to federation"
  }),
  created_at: Schema.DateTimeUtc
}) {}

/** An open volunteering opportunity of an active organisation. */
export class FederationOpportunity extends Schema.Class<FederationOpportunity>("FederationOpportunity")({
  id: OpportunityId,
  title: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String),
  organisation: Schema.Struct({ id: OrganisationId, name: Schema.String }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

export const FEDERATION_PER_PAGE_DEFAULT = 20
export const FEDERATION_PER_PAGE_MAX = 100

const perPage = Schema.optional(PerPageParam(FEDERATION_PER_PAGE_MAX)).annotations({
  description: `Default ${FEDERATION_PER_PAGE_DEFAULT}, at most ${FEDERATION_PER_PAGE_MAX}`
})

/** `?cursor=&per_page=` of the id-ordered lists (newest first). */
export const FederationListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: perPage
})
export type FederationListParams = typeof FederationListParams.Type

/** `GET /events`: upcoming first; the cursor is the last event's start and id. */
export const FederationEventListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(EventCursor)),
  per_page: perPage
})
export type FederationEventListParams = typeof FederationEventListParams.Type

/** `GET /reviews?member_id=`. */
export const FederationReviewListParams = Schema.Struct({
  member_id: Schema.NumberFromString.pipe(Schema.compose(RecordId)).annotations({
    description: "An opted-in member of this community (else 404)"
  }),
  ...FederationListParams.fields
})
export type FederationReviewListParams = typeof FederationReviewListParams.Type

export const FederationListingPath = Schema.Struct({ id: PathId(ListingId) })
export const FederationMemberPath = Schema.Struct({ id: PathId(UserId) })
export const FederationEventPath = Schema.Struct({ id: PathId(EventId) })
