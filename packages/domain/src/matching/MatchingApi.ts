import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { MatchingFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { ListMatchesParams, MatchList, MatchProfile, UpdateMatchProfile } from "./Match.js"

/** Members' match suggestions and the profile they are computed from (decisions D17 "Matching"). */
export class MatchingApi extends HttpApiGroup.make("matching")
  .annotate(OpenApi.Title, "Matching")
  .annotate(
    OpenApi.Description,
    "Suggestions of other members' listings and open volunteering opportunities that fit the caller"
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/matches")
      .annotate(OpenApi.Summary, "List my matches")
      .setUrlParams(ListMatchesParams)
      .addSuccess(MatchList)
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The caller's suggestions, best first, each with its score (0 to 1) and reasons. They are computed when " +
          "none are stored, when the stored ones are older than 10 minutes, or after the profile or the " +
          "community's matching configuration changed. With approval required, new matches show once an admin " +
          "approved them"
      )
  )
  .add(
    HttpApiEndpoint.get("profile", "/api/v2/matches/profile")
      .annotate(OpenApi.Summary, "Get my matching profile")
      .addSuccess(DataEnvelope(MatchProfile))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Skills, availability, categories of interest and distance; defaults until saved")
  )
  .add(
    HttpApiEndpoint.put("updateProfile", "/api/v2/matches/profile")
      .annotate(OpenApi.Summary, "Update my matching profile")
      .setPayload(UpdateMatchProfile)
      .addSuccess(DataEnvelope(MatchProfile))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Each given key replaces its value; an unknown category is 422 on `categories.<n>`. The next list " +
          "recomputes the suggestions"
      )
  )
  .middleware(MatchingFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
