import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { GroupType, GroupTypeId } from "./GroupType.js"
import { GroupTypeInUse, GroupTypePolicies, GroupTypePoliciesInput } from "./GroupTypePolicies.js"

export const GROUP_TYPE_NAME_MAX = 100
export const GROUP_TYPE_DESCRIPTION_MAX = 1000

export const GroupTypeName = TrimmedText(1, GROUP_TYPE_NAME_MAX).annotations({
  description: "Unique in the community, in any case"
})
export const GroupTypeDescription = TrimmedText(0, GROUP_TYPE_DESCRIPTION_MAX)

/** A group type as admins see it: with how many groups (not deleted, any status) have it. */
export class AdminGroupType extends GroupType.extend<AdminGroupType>("AdminGroupType")({
  group_count: Schema.Int.annotations({ description: "Groups of this type, of any status (deleted ones not counted)" })
}) {}

export const CreateGroupType = Schema.Struct({
  name: GroupTypeName,
  description: Schema.optionalWith(GroupTypeDescription, { exact: true }).annotations({ description: "Default empty" }),
  policies: Schema.optionalWith(GroupTypePoliciesInput, { exact: true }).annotations({
    description: "Policies other than the defaults (`members`, `open`, no limit, a chatroom)"
  })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type CreateGroupType = typeof CreateGroupType.Type

export const UpdateGroupType = Schema.Struct({
  name: Schema.optionalWith(GroupTypeName, { exact: true }),
  description: Schema.optionalWith(GroupTypeDescription, { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type UpdateGroupType = typeof UpdateGroupType.Type

export const GroupTypeIdPath = Schema.Struct({ id: PathId(GroupTypeId) })

export const GroupTypeDeleted = Schema.Struct({ id: GroupTypeId, deleted: Schema.Literal(true) })
export type GroupTypeDeleted = typeof GroupTypeDeleted.Type

export const AdminGroupTypesParams = OffsetPageParams
export type AdminGroupTypesParams = typeof AdminGroupTypesParams.Type

const TYPES = "/api/v2/admin/groups/types"

/** The community's group types and their policies (decisions D17 "Groups admin"): tenant admins only. */
export class AdminGroupTypesApi extends HttpApiGroup.make("adminGroupTypes")
  .annotate(OpenApi.Title, "Admin: group types")
  .annotate(
    OpenApi.Description,
    "Group types and the policies their groups follow: who may create them, how members join, how many they hold " +
      "and whether they have a chatroom"
  )
  .add(
    HttpApiEndpoint.get("list", TYPES)
      .annotate(OpenApi.Summary, "List group types (admin)")
      .setUrlParams(AdminGroupTypesParams)
      .addSuccess(OffsetPage(AdminGroupType))
      .annotate(OpenApi.Description, "Every type of the community by name, with its policies and its group count")
  )
  .add(
    HttpApiEndpoint.post("create", TYPES)
      .annotate(OpenApi.Summary, "Create a group type")
      .annotate(AuditAction, "group-types.created")
      .setPayload(CreateGroupType)
      .addSuccess(DataEnvelope(AdminGroupType), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "A name the community has already, in any case, is 409 `ALREADY_EXISTS` on `name`")
  )
  .add(
    HttpApiEndpoint.put("update", `${TYPES}/:id`)
      .annotate(OpenApi.Summary, "Update a group type")
      .annotate(AuditAction, "group-types.updated")
      .setPath(GroupTypeIdPath)
      .setPayload(UpdateGroupType)
      .addSuccess(DataEnvelope(AdminGroupType))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "Renames or describes the type; a name taken (any case) is 409 `ALREADY_EXISTS`")
  )
  .add(
    HttpApiEndpoint.del("delete", `${TYPES}/:id`)
      .annotate(OpenApi.Summary, "Delete a group type")
      .annotate(AuditAction, "group-types.deleted")
      .setPath(GroupTypeIdPath)
      .addSuccess(DataEnvelope(GroupTypeDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(GroupTypeInUse))
      .annotate(
        OpenApi.Description,
        "Removes a type no group has; while a group (of any status, not deleted) has it: 409 `IN_USE`"
      )
  )
  .add(
    HttpApiEndpoint.get("policies", `${TYPES}/:id/policies`)
      .annotate(OpenApi.Summary, "Get a group type's policies")
      .setPath(GroupTypeIdPath)
      .addSuccess(DataEnvelope(GroupTypePolicies))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Who creates groups of the type, how members join, the member limit, the chatroom")
  )
  .add(
    HttpApiEndpoint.put("updatePolicies", `${TYPES}/:id/policies`)
      .annotate(OpenApi.Summary, "Update a group type's policies")
      .annotate(AuditAction, "group-types.policies.updated")
      .setPath(GroupTypeIdPath)
      .setPayload(GroupTypePoliciesInput)
      .addSuccess(DataEnvelope(GroupTypePolicies))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "A partial change; it applies to the type's groups from the next request on (members already in stay, even " +
          "past a lower `max_members`; pending requests stay pending)"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
