import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { GroupId, GroupStatus, GroupVisibility } from "../groups/Group.js"
import { Forbidden, httpError } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { UserSummary } from "../identity/UserSummary.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

const Count = Schema.Int.pipe(Schema.nonNegative())

/** Why a group is in the moderation queue. */
export const GroupModerationReason = Schema.Literal("reported", "pending_review")
export type GroupModerationReason = typeof GroupModerationReason.Type

/** One group of `GET /api/v2/admin/groups/moderation`. */
export const GroupModerationItem = Schema.Struct({
  group: Schema.Struct({
    id: GroupId,
    name: Schema.String,
    visibility: GroupVisibility,
    status: GroupStatus,
    owner: UserSummary,
    created_at: Schema.DateTimeUtc
  }),
  reasons: Schema.Array(GroupModerationReason).annotations({
    description: "`reported`: members' reports about it are open; `pending_review`: it waits for approval"
  }),
  open_reports: Count,
  oldest_open_report_at: Schema.NullOr(Schema.DateTimeUtc),
  waiting_since: Schema.DateTimeUtc.annotations({
    description: "Its oldest open report, or its creation while it waits for review, whichever is earlier"
  })
})
export type GroupModerationItem = typeof GroupModerationItem.Type

export const GroupModerationParams = Schema.Struct({
  ...OffsetPageParams.fields,
  reason: Schema.optional(GroupModerationReason).annotations({ description: "Only groups in the queue for this" })
})
export type GroupModerationParams = typeof GroupModerationParams.Type

/**
 * The groups' moderation queue (decisions D17 "Groups admin": groups with open reports or pending review). Its own
 * group because moderation reads groups (never the reverse): the handler lives with the members' reports.
 */
export class AdminGroupModerationApi extends HttpApiGroup.make("adminGroupModeration")
  .annotate(OpenApi.Title, "Admin: group moderation")
  .annotate(OpenApi.Description, "Groups that need an admin: open reports about them, or waiting for review")
  .add(
    HttpApiEndpoint.get("queue", "/api/v2/admin/groups/moderation")
      .annotate(OpenApi.Summary, "List groups needing moderation")
      .setUrlParams(GroupModerationParams)
      .addSuccess(OffsetPage(GroupModerationItem))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Groups (not deleted) with open member reports or in `pending_review`, the longest waiting first"
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
