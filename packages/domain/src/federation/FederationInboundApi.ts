import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import {
  FederationEvent,
  FederationEventListParams,
  FederationEventPath,
  FederationGroup,
  FederationListing,
  FederationListingPath,
  FederationListParams,
  FederationMember,
  FederationMemberPath,
  FederationOpportunity,
  FederationReview,
  FederationReviewListParams
} from "./FederationInboundViews.js"
import {
  EventsRead,
  GroupsRead,
  ListingsRead,
  MembersRead,
  OpportunitiesRead,
  ReviewsRead
} from "./FederationPolicies.js"

const FEDERATION = "/api/v1/federation"

const NOT_SHARED = "Another community's, a member who has not opted in, or an unknown id: 404 `NOT_FOUND`"

/**
 * What partners read of this community (decisions D13, D13a): the community is the API key's. Each route declares
 * its access policy (toggle and scope) as endpoint middleware.
 */
export class FederationInboundApi extends HttpApiGroup.make("federationInbound")
  .annotate(OpenApi.Title, "Federation: partner reads")
  .annotate(
    OpenApi.Description,
    "Partner platforms read this community's shared records with an inbound API key (bearer, HMAC or the key's " +
      "JWT). Only members who opted in to federation are shown, with their public profile fields; another " +
      "community's record, a non-opted-in member's and an unknown id are 404 `NOT_FOUND`. Lists are cursor pages " +
      "(`per_page` 1 to 100, default 20). A switch, the whitelist or the route's toggle being off → 503 " +
      "`FEDERATION_DISABLED`; a key without the route's scope → 403 `PERMISSION_DENIED`"
  )
  .add(
    HttpApiEndpoint.get("listListings", `${FEDERATION}/listings`)
      .annotate(OpenApi.Summary, "List shared listings")
      .setUrlParams(FederationListParams)
      .addSuccess(CursorPage(FederationListing))
      .annotate(OpenApi.Description, "Active listings of opted-in members, newest first (toggle `listings`)")
      .middleware(ListingsRead)
  )
  .add(
    HttpApiEndpoint.get("getListing", `${FEDERATION}/listings/:id`)
      .annotate(OpenApi.Summary, "Read a shared listing")
      .setPath(FederationListingPath)
      .addSuccess(DataEnvelope(FederationListing))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, `An active listing of an opted-in member. ${NOT_SHARED}`)
      .middleware(ListingsRead)
  )
  .add(
    HttpApiEndpoint.get("listMembers", `${FEDERATION}/members`)
      .annotate(OpenApi.Summary, "List opted-in members")
      .setUrlParams(FederationListParams)
      .addSuccess(CursorPage(FederationMember))
      .annotate(
        OpenApi.Description,
        "Members who opted in to federation and may act here (active, approved), newest first (toggle `profiles`)"
      )
      .middleware(MembersRead)
  )
  .add(
    HttpApiEndpoint.get("getMember", `${FEDERATION}/members/:id`)
      .annotate(OpenApi.Summary, "Read an opted-in member")
      .setPath(FederationMemberPath)
      .addSuccess(DataEnvelope(FederationMember))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, `An opted-in member's public profile. ${NOT_SHARED}`)
      .middleware(MembersRead)
  )
  .add(
    HttpApiEndpoint.get("listEvents", `${FEDERATION}/events`)
      .annotate(OpenApi.Summary, "List shared events")
      .setUrlParams(FederationEventListParams)
      .addSuccess(CursorPage(FederationEvent))
      .annotate(
        OpenApi.Description,
        "Active events with `federated_visibility` other than `none` that have not ended, soonest first; each " +
          "occurrence of a recurring series on its own (toggle `events`)"
      )
      .middleware(EventsRead)
  )
  .add(
    HttpApiEndpoint.get("getEvent", `${FEDERATION}/events/:id`)
      .annotate(OpenApi.Summary, "Read a shared event")
      .setPath(FederationEventPath)
      .addSuccess(DataEnvelope(FederationEvent))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "An event with `federated_visibility` other than `none`, past and cancelled ones included; an event not " +
          "shared with partners, another community's or an unknown id: 404 `NOT_FOUND`"
      )
      .middleware(EventsRead)
  )
  .add(
    HttpApiEndpoint.get("listGroups", `${FEDERATION}/groups`)
      .annotate(OpenApi.Summary, "List shared groups")
      .setUrlParams(FederationListParams)
      .addSuccess(CursorPage(FederationGroup))
      .annotate(
        OpenApi.Description,
        "Public, active groups whose owner opted in to federation, newest first, with their member count " +
          "(toggle `groups`)"
      )
      .middleware(GroupsRead)
  )
  .add(
    HttpApiEndpoint.get("listReviews", `${FEDERATION}/reviews`)
      .annotate(OpenApi.Summary, "List a member's reviews")
      .setUrlParams(FederationReviewListParams)
      .addSuccess(CursorPage(FederationReview))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Published reviews of an opted-in member (`member_id`, required), local and federated, newest first " +
          `(toggle \`reviews\`). ${NOT_SHARED}`
      )
      .middleware(ReviewsRead)
  )
  .add(
    HttpApiEndpoint.get("listOpportunities", `${FEDERATION}/opportunities`)
      .annotate(OpenApi.Summary, "List volunteering opportunities")
      .setUrlParams(FederationListParams)
      .addSuccess(CursorPage(FederationOpportunity))
      .annotate(
        OpenApi.Description,
        "Open opportunities of active organisations, newest first (toggle `volunteering`, scope `listings:read`)"
      )
      .middleware(OpportunitiesRead)
  )
{}
