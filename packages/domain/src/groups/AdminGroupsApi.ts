import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminGroup,
  AdminGroupIdPath,
  AdminGroupMembersParams,
  AdminGroupPath,
  AdminListGroupsParams,
  AdminUpdateGroup,
  GroupAlreadyProcessed,
  GroupAnalytics,
  GroupRecommendation,
  GroupRecommendationsParams,
  RejectGroupPayload,
  SetGroupStatus,
  UpdateFeaturedGroups
} from "./AdminGroup.js"
import { GroupDeleted } from "./Group.js"
import { GroupStateConflict } from "./GroupErrors.js"
import { GroupMember } from "./GroupMember.js"
import { GroupFull } from "./GroupTypePolicies.js"

const GROUPS = "/api/v2/admin/groups"

/**
 * Groups administration (decisions D17 "Groups admin"): tenant admins and platform super-admins; not gated on the
 * `groups` feature, so admins still review and clean up while members cannot use groups.
 */
export class AdminGroupsApi extends HttpApiGroup.make("adminGroups")
  .annotate(OpenApi.Title, "Admin: groups")
  .annotate(OpenApi.Description, "Groups administration: tenant admins and platform super-admins")
  .add(
    HttpApiEndpoint.get("list", GROUPS)
      .annotate(OpenApi.Summary, "List all groups")
      .setUrlParams(AdminListGroupsParams)
      .addSuccess(OffsetPage(AdminGroup))
      .annotate(OpenApi.Description, "Groups of every status, newest first; deleted groups are gone")
  )
  .add(
    HttpApiEndpoint.get("analytics", `${GROUPS}/analytics`)
      .annotate(OpenApi.Summary, "Group analytics")
      .addSuccess(DataEnvelope(GroupAnalytics))
      .annotate(
        OpenApi.Description,
        "Groups by status, memberships, chatroom messages and feed posts in groups over the last 30 days, and new " +
          "groups and memberships per month over the last 12 months"
      )
  )
  .add(
    HttpApiEndpoint.get("approvals", `${GROUPS}/approvals`)
      .annotate(OpenApi.Summary, "List groups awaiting approval")
      .setUrlParams(OffsetPageParams)
      .addSuccess(OffsetPage(AdminGroup))
      .annotate(OpenApi.Description, "Groups in `pending_review`, oldest first")
  )
  .add(
    HttpApiEndpoint.post("approve", `${GROUPS}/approvals/:groupId/approve`)
      .annotate(OpenApi.Summary, "Approve a group")
      .setPath(AdminGroupIdPath)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .addError(httpError(GroupAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "A group in `pending_review` becomes `active` and its owner is told; any other status → 409 " +
          "`ALREADY_PROCESSED`"
      )
  )
  .add(
    HttpApiEndpoint.post("reject", `${GROUPS}/approvals/:groupId/reject`)
      .annotate(OpenApi.Summary, "Reject a group")
      .setPath(AdminGroupIdPath)
      .setPayload(RejectGroupPayload)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .addError(httpError(GroupAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "A group in `pending_review` becomes `rejected` and its owner is told, with the reason if one is given; " +
          "any other status → 409 `ALREADY_PROCESSED`"
      )
  )
  .add(
    HttpApiEndpoint.get("featured", `${GROUPS}/featured`)
      .annotate(OpenApi.Summary, "List featured groups")
      .setUrlParams(OffsetPageParams)
      .addSuccess(OffsetPage(AdminGroup))
      .annotate(OpenApi.Description, "Featured groups in the order they were featured")
  )
  .add(
    HttpApiEndpoint.post("updateFeatured", `${GROUPS}/featured/update`)
      .annotate(OpenApi.Summary, "Set the featured groups")
      .setPayload(UpdateFeaturedGroups)
      .addSuccess(DataEnvelope(Schema.Array(AdminGroup)))
      .annotate(
        OpenApi.Description,
        "Exactly these groups are featured afterwards, in the order given; every other group stops being featured. " +
          "An id that is not an active group of this community → 422 on `group_ids.<index>`"
      )
  )
  .add(
    HttpApiEndpoint.get("recommendations", `${GROUPS}/recommendations`)
      .annotate(OpenApi.Summary, "Recommend groups to a member")
      .setUrlParams(GroupRecommendationsParams)
      .addSuccess(DataEnvelope(Schema.Array(GroupRecommendation)))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Active public groups the member has no membership of, best first: scored on the types and places of " +
          "their groups, their connections among the members, size and recent activity. A member of no group " +
          "gets the most popular and active ones. Not a member of this community → 404"
      )
  )
  .add(
    HttpApiEndpoint.put("toggleFeatured", `${GROUPS}/:id/toggle-featured`)
      .annotate(OpenApi.Summary, "Feature or unfeature a group")
      .setPath(AdminGroupPath)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .addError(httpError(GroupStateConflict))
      .annotate(
        OpenApi.Description,
        "A featured group stops being featured; another becomes featured last, if it is active (else 409 " +
          "`INVALID_STATE`)"
      )
  )
  .add(
    HttpApiEndpoint.put("setStatus", `${GROUPS}/:id/status`)
      .annotate(OpenApi.Summary, "Set a group's status")
      .setPath(AdminGroupPath)
      .setPayload(SetGroupStatus)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .addError(httpError(GroupStateConflict))
      .annotate(
        OpenApi.Description,
        "Allowed: `pending_review` → `active` | `rejected` (as approve and reject, owner told); `active` → " +
          "`dormant` | `archived`; `dormant` → `active` | `archived`; `archived` → `active` | `dormant`; " +
          "`rejected` → `pending_review` | `active`. Anything else, the same status included → 409 `INVALID_STATE`"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Get any group")
      .setPath(AdminGroupPath)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A group of any status, with its memberships by status and its featuring")
  )
  .add(
    HttpApiEndpoint.put("update", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Update a group")
      .setPath(AdminGroupPath)
      .setPayload(AdminUpdateGroup)
      .addSuccess(DataEnvelope(AdminGroup))
      .addError(httpError(NotFound))
      .addError(httpError(GroupStateConflict))
      .addError(httpError(GroupFull))
      .annotate(
        OpenApi.Description,
        "Any subset of name, description, type, visibility, location and owner (a member of the group who is " +
          "not banned, else 422 `owner_id`; a pending member handed a full group → 409 `GROUP_FULL`); the status " +
          "has its own route"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Delete a group")
      .setPath(AdminGroupPath)
      .addSuccess(DataEnvelope(GroupDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Deletes the group for everyone, as its owner can")
  )
  .add(
    HttpApiEndpoint.get("members", `${GROUPS}/:id/members`)
      .annotate(OpenApi.Summary, "List a group's members")
      .setPath(AdminGroupPath)
      .setUrlParams(AdminGroupMembersParams)
      .addSuccess(OffsetPage(GroupMember))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Memberships of every status (or of one status or role), in member id order")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
