import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminListListingsParams,
  Listing,
  ListingDeleted,
  ListingIdPath,
  ModerationQueueParams,
  ModerationStats
} from "./Listing.js"
import { ListingNotPending } from "./ListingErrors.js"

const LISTINGS = "/api/v2/admin/listings"

/** Listing moderation (tenant admins and platform super-admins). */
export class AdminListingsApi extends HttpApiGroup.make("adminListings")
  .annotate(OpenApi.Title, "Admin: listings")
  .annotate(OpenApi.Description, "Listing moderation: tenant admins and platform super-admins")
  .add(
    HttpApiEndpoint.get("list", LISTINGS)
      .annotate(OpenApi.Summary, "List all listings")
      .setUrlParams(AdminListListingsParams)
      .addSuccess(OffsetPage(Listing))
      .annotate(OpenApi.Description, "Listings of every status, newest first; filters status, type, user, category")
  )
  .add(
    HttpApiEndpoint.get("moderationQueue", `${LISTINGS}/moderation-queue`)
      .annotate(OpenApi.Summary, "List listings awaiting moderation")
      .setUrlParams(ModerationQueueParams)
      .addSuccess(OffsetPage(Listing))
      .annotate(OpenApi.Description, "Pending listings, oldest first")
  )
  .add(
    HttpApiEndpoint.get("moderationStats", `${LISTINGS}/moderation-stats`)
      .annotate(OpenApi.Summary, "Get moderation statistics")
      .annotate(
        OpenApi.Description,
        "Listings of the community per status (deleted ones not counted) and when the longest-waiting pending " +
          "one was created"
      )
      .addSuccess(DataEnvelope(ModerationStats))
  )
  .add(
    HttpApiEndpoint.get("get", `${LISTINGS}/:id`)
      .annotate(OpenApi.Summary, "Get any listing")
      .annotate(OpenApi.Description, "A listing of any status")
      .setPath(ListingIdPath)
      .addSuccess(DataEnvelope(Listing))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.del("delete", `${LISTINGS}/:id`)
      .annotate(OpenApi.Summary, "Delete a listing (moderation)")
      .setPath(ListingIdPath)
      .addSuccess(DataEnvelope(ListingDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the listing (also the way to reject a pending one)")
  )
  .add(
    HttpApiEndpoint.post("approve", `${LISTINGS}/:id/approve`)
      .annotate(OpenApi.Summary, "Approve a listing")
      .setPath(ListingIdPath)
      .addSuccess(DataEnvelope(Listing))
      .addError(httpError(NotFound))
      .addError(httpError(ListingNotPending))
      .annotate(OpenApi.Description, "Makes a pending listing active; any other is 422 LISTING_NOT_PENDING")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
