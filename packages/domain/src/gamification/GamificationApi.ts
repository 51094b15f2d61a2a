import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { GamificationFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { GamificationUserPath } from "./AdminGamificationApi.js"
import { AwardedBadge, GamificationSummary } from "./Gamification.js"

/** Members' badges and points (decisions D17 "Gamification"), while the community has gamification on. */
export class GamificationApi extends HttpApiGroup.make("gamification")
  .annotate(OpenApi.Title, "Gamification")
  .annotate(OpenApi.Description, "Members' experience points, levels and badges")
  .add(
    HttpApiEndpoint.get("me", "/api/v2/users/me/gamification")
      .annotate(OpenApi.Summary, "Get my points, level and badges")
      .annotate(OpenApi.Description, "The caller's experience points, level and badges, latest badge first")
      .addSuccess(DataEnvelope(GamificationSummary))
  )
  .add(
    HttpApiEndpoint.get("summary", "/api/v2/users/:id/gamification")
      .annotate(OpenApi.Summary, "Get a member's points, level and badges")
      .annotate(OpenApi.Description, "Another member's points, level and badges; other communities' members are 404")
      .setPath(GamificationUserPath)
      .addSuccess(DataEnvelope(GamificationSummary))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.get("badges", "/api/v2/users/:id/badges")
      .annotate(OpenApi.Summary, "List a member's badges")
      .annotate(OpenApi.Description, "A member's badges, latest first; other communities' members are 404")
      .setPath(GamificationUserPath)
      .addSuccess(DataEnvelope(Schema.Array(AwardedBadge)))
      .addError(httpError(NotFound))
  )
  .middleware(GamificationFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
