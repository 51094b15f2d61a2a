import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound, RateLimited } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { ListingsFeature } from "../http/FeatureGate.js"
import { RateLimit } from "../http/RateLimit.js"
import { Authentication, OptionalAuthentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { CreateListing, Listing, ListingDeleted, ListingIdPath, ListListingsParams, UpdateListing } from "./Listing.js"

/** Listing creation, 10 per minute per IP (as the spec's "event create"). */
export class ListingCreateRateLimit extends RateLimit<ListingCreateRateLimit>()("ListingCreateRateLimit", {
  limit: 10,
  window: "1 minute",
  scope: "ip"
}) {}

const LISTINGS = "/api/v2/listings"

/** Offers and requests (decisions D6); every route answers 403 `FEATURE_DISABLED` when `listings` is off. */
export class ListingsApi extends HttpApiGroup.make("listings")
  .annotate(OpenApi.Title, "Listings")
  .annotate(
    OpenApi.Description,
    "Offers and requests of members; every route answers 403 `FEATURE_DISABLED` when `listings` is off"
  )
  .add(
    HttpApiEndpoint.get("list", LISTINGS)
      .annotate(OpenApi.Summary, "List listings")
      .setUrlParams(ListListingsParams)
      .addSuccess(CursorPage(Listing))
      .annotate(
        OpenApi.Description,
        "Active listings of this community, newest first; with `search`, in the order of the community's " +
          "`listings` algorithm (`relevance`, `hybrid`); no token needed"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${LISTINGS}/:id`)
      .annotate(OpenApi.Summary, "Get a listing")
      .setPath(ListingIdPath)
      .addSuccess(DataEnvelope(Listing))
      .addError(httpError(NotFound))
      .middleware(OptionalAuthentication)
      .annotate(OpenApi.Description, "An active listing; its owner and community admins also see it while pending")
  )
  .add(
    HttpApiEndpoint.post("create", LISTINGS)
      .annotate(OpenApi.Summary, "Create a listing")
      .setPayload(CreateListing)
      .addSuccess(DataEnvelope(Listing), { status: 201 })
      .addError(httpError(Forbidden))
      .addError(httpError(RateLimited))
      // Endpoint middleware runs last-added first: tenant, then the caller, then the rate limit.
      .middleware(ListingCreateRateLimit)
      .middleware(Authentication)
      .annotate(OpenApi.Description, "Status `active`, or `pending` when the community moderates listings")
  )
  .add(
    HttpApiEndpoint.put("update", `${LISTINGS}/:id`)
      .annotate(OpenApi.Summary, "Update a listing")
      .setPath(ListingIdPath)
      .setPayload(UpdateListing)
      .addSuccess(DataEnvelope(Listing))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .middleware(Authentication)
      .annotate(OpenApi.Description, "The owner or a community admin")
  )
  .add(
    HttpApiEndpoint.del("delete", `${LISTINGS}/:id`)
      .annotate(OpenApi.Summary, "Delete a listing")
      .setPath(ListingIdPath)
      .addSuccess(DataEnvelope(ListingDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .middleware(Authentication)
      .annotate(OpenApi.Description, "The owner or a community admin")
  )
  .middleware(ListingsFeature)
  // Per endpoint and last, so that it wraps each endpoint's own middleware: the tenant is always resolved first.
  .middlewareEndpoints(TenantMiddleware)
{}
