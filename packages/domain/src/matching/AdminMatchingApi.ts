import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminMatch,
  ApprovalStats,
  DecideMatch,
  ListApprovalsParams,
  MatchAlreadyProcessed,
  MatchCacheCleared,
  MatchIdPath,
  MatchingConfig,
  MatchingStats,
  UpdateMatchingConfig
} from "./Match.js"

const MATCHING = "/api/v2/admin/matching"
const APPROVALS = `${MATCHING}/approvals`

/** Matching administration (decisions D17 "Matching"): tenant admins and platform super-admins. */
export class AdminMatchingApi extends HttpApiGroup.make("adminMatching")
  .annotate(OpenApi.Title, "Admin: matching")
  .annotate(OpenApi.Description, "Configuration, statistics, the computed matches and the approvals queue")
  .add(
    HttpApiEndpoint.get("config", `${MATCHING}/config`)
      .annotate(OpenApi.Summary, "Get the matching configuration")
      .addSuccess(DataEnvelope(MatchingConfig))
      .annotate(
        OpenApi.Description,
        "Weights of the four components, the lowest score that is a match, and whether matches need approval. " +
          "The weights are those of the ranking area `matching` (`/admin/config/algorithms`)"
      )
  )
  .add(
    HttpApiEndpoint.put("updateConfig", `${MATCHING}/config`)
      .annotate(OpenApi.Summary, "Update the matching configuration")
      .annotate(AuditAction, "matching.config.updated")
      .setPayload(UpdateMatchingConfig)
      .addSuccess(DataEnvelope(MatchingConfig))
      .annotate(
        OpenApi.Description,
        "Merges the given keys (also within `weights`); all four weights 0 is 422 on `weights`. Members' " +
          "suggestions are recomputed on their next list"
      )
  )
  .add(
    HttpApiEndpoint.post("clearCache", `${MATCHING}/cache/clear`)
      .annotate(OpenApi.Summary, "Clear the computed matches")
      .annotate(AuditAction, "matching.cache.cleared")
      .addSuccess(DataEnvelope(MatchCacheCleared))
      .annotate(
        OpenApi.Description,
        "Deletes the community's computed matches that no admin decided (visible and pending ones); approved and " +
          "rejected ones stay, so a rejected match never comes back. Each member's next list recomputes"
      )
  )
  .add(
    HttpApiEndpoint.get("stats", `${MATCHING}/stats`)
      .annotate(OpenApi.Summary, "Matching statistics")
      .addSuccess(DataEnvelope(MatchingStats))
      .annotate(OpenApi.Description, "Profiles, stored matches per status and their average score")
  )
  .add(
    HttpApiEndpoint.get("approvals", APPROVALS)
      .annotate(OpenApi.Summary, "List matches of the approvals queue")
      .setUrlParams(ListApprovalsParams)
      .addSuccess(OffsetPage(AdminMatch))
      .annotate(
        OpenApi.Description,
        "Matches made while approval was required (pending, approved, rejected), newest first"
      )
  )
  .add(
    HttpApiEndpoint.get("approvalStats", `${APPROVALS}/stats`)
      .annotate(OpenApi.Summary, "Approvals statistics")
      .addSuccess(DataEnvelope(ApprovalStats))
      .annotate(OpenApi.Description, "Matches of the approvals queue per status")
  )
  .add(
    HttpApiEndpoint.get("approval", `${APPROVALS}/:id`)
      .annotate(OpenApi.Summary, "Get a match of the approvals queue")
      .setPath(MatchIdPath)
      .addSuccess(DataEnvelope(AdminMatch))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A match made while approval was required, with its member and decision")
  )
  .add(
    HttpApiEndpoint.post("approve", `${APPROVALS}/:id/approve`)
      .annotate(OpenApi.Summary, "Approve a match")
      .annotate(AuditAction, "matching.approval.approved")
      .setPath(MatchIdPath)
      .setPayload(DecideMatch)
      .addSuccess(DataEnvelope(AdminMatch))
      .addError(httpError(NotFound))
      .addError(httpError(MatchAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "`pending` → `approved`: the member sees it and gets a bell; decided already → 409 `ALREADY_PROCESSED`"
      )
  )
  .add(
    HttpApiEndpoint.post("reject", `${APPROVALS}/:id/reject`)
      .annotate(OpenApi.Summary, "Reject a match")
      .annotate(AuditAction, "matching.approval.rejected")
      .setPath(MatchIdPath)
      .setPayload(DecideMatch)
      .addSuccess(DataEnvelope(AdminMatch))
      .addError(httpError(NotFound))
      .addError(httpError(MatchAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "`pending` → `rejected`: never shown and never suggested again; decided already → 409 `ALREADY_PROCESSED`"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
