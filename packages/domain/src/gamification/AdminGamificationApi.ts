import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { UserId } from "../identity/User.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AwardBadge,
  AwardedBadge,
  Badge,
  BadgeDeleted,
  BadgeId,
  BadgeRevoked,
  BulkAward,
  BulkAwarded,
  Campaign,
  CampaignDeleted,
  CampaignId,
  CreateBadge,
  CreateCampaign,
  GamificationStats,
  Rechecked,
  UpdateCampaign
} from "./Gamification.js"

const GAMIFICATION = "/api/v2/admin/gamification"
const USERS = "/api/v2/admin/users"

export const BadgeIdPath = Schema.Struct({ id: PathId(BadgeId) })
export const CampaignIdPath = Schema.Struct({ id: PathId(CampaignId) })
export const GamificationUserPath = Schema.Struct({ id: PathId(UserId) })
export const UserBadgePath = Schema.Struct({ id: PathId(UserId), badgeId: PathId(BadgeId) })

export const AdminBadgesParams = OffsetPageParams
export type AdminBadgesParams = typeof AdminBadgesParams.Type
export const AdminCampaignsParams = OffsetPageParams
export type AdminCampaignsParams = typeof AdminCampaignsParams.Type

/** Badges, campaigns and awards of the community (decisions D17 "Gamification"): tenant admins, super-admins. */
export class AdminGamificationApi extends HttpApiGroup.make("adminGamification")
  .annotate(OpenApi.Title, "Admin: gamification")
  .annotate(
    OpenApi.Description,
    "Badges (defined as data: criteria or by hand), time-boxed XP campaigns, rechecks, bulk awards and statistics"
  )
  .add(
    HttpApiEndpoint.get("stats", `${GAMIFICATION}/stats`)
      .annotate(OpenApi.Summary, "Gamification statistics")
      .annotate(OpenApi.Description, "Badges, awards, members with badges or points, points earned, top badges")
      .addSuccess(DataEnvelope(GamificationStats))
  )
  .add(
    HttpApiEndpoint.get("listBadges", `${GAMIFICATION}/badges`)
      .annotate(OpenApi.Summary, "List badges")
      .annotate(OpenApi.Description, "The community's badges (the default catalogue and its own), oldest first")
      .setUrlParams(AdminBadgesParams)
      .addSuccess(OffsetPage(Badge))
  )
  .add(
    HttpApiEndpoint.post("createBadge", `${GAMIFICATION}/badges`)
      .annotate(OpenApi.Summary, "Create a badge")
      .annotate(AuditAction, "badge.created")
      .annotate(
        OpenApi.Description,
        "A badge with criteria `{event, threshold}` (earned from then on, and by a recheck), or none (by hand); " +
          "a key in use is 409 `ALREADY_EXISTS`"
      )
      .setPayload(CreateBadge)
      .addSuccess(DataEnvelope(Badge), { status: 201 })
      .addError(httpError(AlreadyExists))
  )
  .add(
    HttpApiEndpoint.del("deleteBadge", `${GAMIFICATION}/badges/:id`)
      .annotate(OpenApi.Summary, "Delete a badge")
      .annotate(AuditAction, "badge.deleted")
      .annotate(OpenApi.Description, "Removes the badge and every award of it")
      .setPath(BadgeIdPath)
      .addSuccess(DataEnvelope(BadgeDeleted))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.get("listCampaigns", `${GAMIFICATION}/campaigns`)
      .annotate(OpenApi.Summary, "List campaigns")
      .annotate(OpenApi.Description, "The community's XP campaigns, latest start first")
      .setUrlParams(AdminCampaignsParams)
      .addSuccess(OffsetPage(Campaign))
  )
  .add(
    HttpApiEndpoint.post("createCampaign", `${GAMIFICATION}/campaigns`)
      .annotate(OpenApi.Summary, "Create a campaign")
      .annotate(AuditAction, "campaign.created")
      .annotate(
        OpenApi.Description,
        "While active, events of `applies_to` between `starts_at` and `ends_at` earn points × `xp_multiplier` " +
          "(the highest of overlapping campaigns); `ends_at` not after `starts_at` is 422"
      )
      .setPayload(CreateCampaign)
      .addSuccess(DataEnvelope(Campaign), { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("updateCampaign", `${GAMIFICATION}/campaigns/:id`)
      .annotate(OpenApi.Summary, "Update a campaign")
      .annotate(AuditAction, "campaign.updated")
      .annotate(OpenApi.Description, "Changes the fields sent; `ends_at` must stay after `starts_at` (else 422)")
      .setPath(CampaignIdPath)
      .setPayload(UpdateCampaign)
      .addSuccess(DataEnvelope(Campaign))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.del("deleteCampaign", `${GAMIFICATION}/campaigns/:id`)
      .annotate(OpenApi.Summary, "Delete a campaign")
      .annotate(AuditAction, "campaign.deleted")
      .annotate(OpenApi.Description, "Removes the campaign; points already earned stay")
      .setPath(CampaignIdPath)
      .addSuccess(DataEnvelope(CampaignDeleted))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("recheckAll", `${GAMIFICATION}/recheck-all`)
      .annotate(OpenApi.Summary, "Recheck every member's badges")
      .annotate(AuditAction, "badges.rechecked")
      .annotate(
        OpenApi.Description,
        "Awards every badge whose criteria a member's recorded activity meets and they do not hold yet"
      )
      .addSuccess(DataEnvelope(Rechecked))
  )
  .add(
    HttpApiEndpoint.post("bulkAward", `${GAMIFICATION}/bulk-award`)
      .annotate(OpenApi.Summary, "Award a badge to many members")
      .annotate(AuditAction, "badge.bulk-awarded")
      .annotate(
        OpenApi.Description,
        "Awards the badge to each member named; ids of no member here and members who hold it are skipped; an " +
          "unknown badge is 404"
      )
      .setPayload(BulkAward)
      .addSuccess(DataEnvelope(BulkAwarded))
      .addError(httpError(NotFound))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** A member's badges as admins manage them (`/api/v2/admin/users/{id}/badges`, `/users/badges/recheck-all`). */
export class AdminUserBadgesApi extends HttpApiGroup.make("adminUserBadges")
  .annotate(OpenApi.Title, "Admin: users' badges")
  .annotate(OpenApi.Description, "A member's badges: list, award, revoke and recheck (tenant admins, super-admins)")
  .add(
    HttpApiEndpoint.post("recheckAll", `${USERS}/badges/recheck-all`)
      .annotate(OpenApi.Summary, "Recheck every member's badges")
      .annotate(AuditAction, "badges.rechecked")
      .annotate(OpenApi.Description, "As `POST /admin/gamification/recheck-all`")
      .addSuccess(DataEnvelope(Rechecked))
  )
  .add(
    HttpApiEndpoint.get("list", `${USERS}/:id/badges`)
      .annotate(OpenApi.Summary, "List a member's badges")
      .annotate(OpenApi.Description, "The member's badges, latest first")
      .setPath(GamificationUserPath)
      .addSuccess(DataEnvelope(Schema.Array(AwardedBadge)))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("award", `${USERS}/:id/badges`)
      .annotate(OpenApi.Summary, "Award a badge to a member")
      .annotate(AuditAction, "badge.awarded")
      .annotate(
        OpenApi.Description,
        "Awards the badge by hand (the member is notified); held already is 409 `ALREADY_EXISTS`, an unknown " +
          "badge 404 with field `badge_id`"
      )
      .setPath(GamificationUserPath)
      .setPayload(AwardBadge)
      .addSuccess(DataEnvelope(AwardedBadge), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
  )
  .add(
    HttpApiEndpoint.del("revoke", `${USERS}/:id/badges/:badgeId`)
      .annotate(OpenApi.Summary, "Revoke a member's badge")
      .annotate(AuditAction, "badge.revoked")
      .annotate(
        OpenApi.Description,
        "Takes the badge back; a badge with criteria may be earned again by the next qualifying event or recheck"
      )
      .setPath(UserBadgePath)
      .addSuccess(DataEnvelope(BadgeRevoked))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("recheck", `${USERS}/:id/badges/recheck`)
      .annotate(OpenApi.Summary, "Recheck a member's badges")
      .annotate(AuditAction, "badges.rechecked")
      .annotate(OpenApi.Description, "Awards the badges whose criteria the member's recorded activity meets")
      .setPath(GamificationUserPath)
      .addSuccess(DataEnvelope(Rechecked))
      .addError(httpError(NotFound))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
