import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { GroupsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { CreateGroup, Group, GroupDeleted, GroupIdPath, ListGroupsParams, UpdateGroup } from "./Group.js"
import { GroupStateConflict } from "./GroupErrors.js"
import { GroupType } from "./GroupType.js"

const GROUPS = "/api/v2/groups"

/** Community groups (decisions D14, D14a); every route answers 403 `FEATURE_DISABLED` when `groups` is off. */
export class GroupsApi extends HttpApiGroup.make("groups")
  .annotate(OpenApi.Title, "Groups")
  .annotate(
    OpenApi.Description,
    "Community groups: the list, the detail, and what owners, organisers and admins do with a group; every route " +
      "answers 403 `FEATURE_DISABLED` when `groups` is off"
  )
  .add(
    HttpApiEndpoint.get("list", GROUPS)
      .annotate(OpenApi.Summary, "List groups")
      .setUrlParams(ListGroupsParams)
      .addSuccess(CursorPage(Group))
      .annotate(
        OpenApi.Description,
        "Groups of this community, newest first, public and private alike. Groups waiting for review or rejected " +
          "are listed only for their members and admins"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Get a group")
      .setPath(GroupIdPath)
      .addSuccess(DataEnvelope(Group))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Any member may read a group, public or private, with its member count and the caller's membership; a " +
          "group waiting for review or rejected is 404 except for its members and admins"
      )
  )
  .add(
    HttpApiEndpoint.post("create", GROUPS)
      .annotate(OpenApi.Summary, "Create a group")
      .setPayload(CreateGroup)
      .addSuccess(DataEnvelope(Group), { status: 201 })
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The caller owns the new group and is its first active member. It is `active`, or `pending_review` while " +
          "the community reviews new groups (setting `group_approval_required`; admins' groups skip the review). " +
          "A `type_id` that is not a group type of this community is a 422; a type whose `who_can_create` is " +
          "`admins` is 403 `FORBIDDEN` (field `type_id`) for anyone but a community admin"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Update a group")
      .setPath(GroupIdPath)
      .setPayload(UpdateGroup)
      .addSuccess(DataEnvelope(Group))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(GroupStateConflict))
      .annotate(
        OpenApi.Description,
        "The owner, active organisers and admins edit any subset of the fields. Only admins change the status, " +
          "except that the owner may archive an active or dormant group (another status: 409 `INVALID_STATE`). " +
          "Moving the group to a type only admins create groups of is 403 `FORBIDDEN` for anyone but an admin"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${GROUPS}/:id`)
      .annotate(OpenApi.Summary, "Delete a group")
      .setPath(GroupIdPath)
      .addSuccess(DataEnvelope(GroupDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "The owner, an active organiser or an admin deletes the group for everyone")
  )
  .add(
    HttpApiEndpoint.get("types", "/api/v2/group-types")
      .annotate(OpenApi.Summary, "List group types")
      .addSuccess(DataEnvelope(Schema.Array(GroupType)))
      .annotate(OpenApi.Description, "The kinds of group this community offers, by name, with their policies")
  )
  .middleware(GroupsFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
