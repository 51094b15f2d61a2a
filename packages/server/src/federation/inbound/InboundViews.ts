import type { CategorySummary, FederationMemberRef } from "@timebank/domain"
import {
  FederationEvent,
  FederationGroup,
  FederationListing,
  FederationMember,
  FederationOpportunity,
  FederationReview
} from "@timebank/domain"
import { DateTime } from "effect"
import type { SharedEvent } from "../../events/SharedEvents.js"
import type { SharedGroup } from "../../groups/SharedGroups.js"
import type { SharedMember } from "../../identity/SharedMembers.js"
import type { SharedListing } from "../../listings/SharedListings.js"
import type { SharedOpportunity, SharedReview } from "../../volunteering/SharedVolunteering.js"

/**
 * The partner-facing views of `/api/v1/federation/*` (decisions D13a), built from the owners' federated reads. Each
 * takes the page's related records already loaded (one query per relation for the whole page).
 */

const utc = DateTime.unsafeFromDate

export const memberRef = (m: SharedMember): FederationMemberRef => ({
  id: m.id,
  first_name: m.first_name,
  last_name: m.last_name,
  avatar_url: m.avatar_url
})

export const memberView = (m: SharedMember, skills: ReadonlyArray<string>): FederationMember =>
  FederationMember.make({
    id: m.id,
    first_name: m.first_name,
    last_name: m.last_name,
    avatar_url: m.avatar_url,
    bio: m.bio,
    skills,
    location: m.location
  })

export const listingView = (
  l: SharedListing,
  owner: SharedMember,
  category: CategorySummary | undefined
): FederationListing =>
  FederationListing.make({
    id: l.id,
    type: l.type,
    title: l.title,
    description: l.description,
    category: category === undefined ? null : { id: category.id, name: category.name },
    hours_estimate: l.hours_estimate,
    location: l.location,
    owner: memberRef(owner),
    created_at: utc(l.created_at),
    updated_at: utc(l.updated_at)
  })

export const eventView = (e: SharedEvent, organiser: SharedMember | undefined): FederationEvent =>
  FederationEvent.make({
    id: e.id,
    title: e.title,
    description: e.description,
    start_time: utc(e.start_time),
    end_time: e.end_time === null ? null : utc(e.end_time),
    location: e.location,
    is_online: e.is_online,
    max_attendees: e.max_attendees,
    image_url: e.image_url,
    status: e.status,
    federated_visibility: e.federated_visibility,
    organiser: organiser === undefined ? null : memberRef(organiser),
    created_at: utc(e.created_at),
    updated_at: utc(e.updated_at)
  })

export const groupView = (g: SharedGroup): FederationGroup =>
  FederationGroup.make({
    id: g.id,
    name: g.name,
    description: g.description,
    location: g.location,
    member_count: g.member_count,
    created_at: utc(g.created_at)
  })

/**
 * A review with who wrote it: a partner's member by the name the partner gave; a local reviewer only when they opted
 * in to federation (else `reviewer` is null: their name does not cross).
 */
export const reviewView = (
  r: SharedReview,
  member: SharedMember,
  localReviewer: SharedMember | undefined
): FederationReview =>
  FederationReview.make({
    id: r.id,
    member_id: member.id,
    rating: r.rating,
    comment: r.comment,
    is_federated: r.is_federated,
    reviewer: r.is_federated
      ? r.reviewer_name === null ? null : { id: null, name: r.reviewer_name }
      : localReviewer === undefined
      ? null
      : { id: localReviewer.id, name: `${localReviewer.first_name} ${localReviewer.last_name}` },
    created_at: utc(r.created_at)
  })

export const opportunityView = (o: SharedOpportunity): FederationOpportunity =>
  FederationOpportunity.make({
    id: o.id,
    title: o.title,
    description: o.description,
    location: o.location,
    organisation: o.organisation,
    created_at: utc(o.created_at),
    updated_at: utc(o.updated_at)
  })
