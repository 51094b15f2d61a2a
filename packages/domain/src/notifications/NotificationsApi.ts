import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { UserIdPath } from "../identity/UsersApi.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  CategoryParams,
  DeletedMany,
  DeletedOne,
  GroupedNotification,
  GroupRead,
  MarkedRead,
  MutedUser,
  MuteState,
  Notification,
  NotificationCounts,
  NotificationIdPath,
  NotificationListParams,
  NotificationSetting
} from "./Notification.js"

const BELL = "/api/v2/notifications"

/** The caller's bell inbox (decisions D9, D12): list, grouped, counts, read, delete. Own items only. */
export class NotificationsApi extends HttpApiGroup.make("notifications")
  .annotate(OpenApi.Title, "Notifications")
  .annotate(OpenApi.Description, "The caller's bell inbox; another member's item is a 404")
  .add(
    HttpApiEndpoint.get("list", BELL)
      .annotate(OpenApi.Summary, "List my notifications")
      .annotate(OpenApi.Description, "Newest first; `type` keeps one category, `unread_only=true` the unread")
      .setUrlParams(NotificationListParams)
      .addSuccess(CursorPage(Notification))
  )
  .add(
    HttpApiEndpoint.get("grouped", `${BELL}/grouped`)
      .annotate(OpenApi.Summary, "Grouped inbox")
      .annotate(OpenApi.Description, "The latest 200 items, those sharing `type` and `link` collapsed into one")
      .addSuccess(DataEnvelope(Schema.Array(GroupedNotification)))
  )
  .add(
    HttpApiEndpoint.get("counts", `${BELL}/counts`)
      .annotate(OpenApi.Summary, "Unread counts")
      .annotate(OpenApi.Description, "Unread items per category, `other`, and their sum `total`")
      .addSuccess(DataEnvelope(NotificationCounts))
  )
  .add(
    HttpApiEndpoint.post("readAll", `${BELL}/read-all`)
      .annotate(OpenApi.Summary, "Mark all read")
      .annotate(OpenApi.Description, "Marks every unread item of the caller read; answers how many")
      .addSuccess(DataEnvelope(MarkedRead))
  )
  .add(
    HttpApiEndpoint.post("readGroup", `${BELL}/group/read`)
      .annotate(OpenApi.Summary, "Mark a group read")
      .annotate(OpenApi.Description, "Every item of the group `type:link` (as the grouped inbox names it)")
      .setPayload(GroupRead)
      .addSuccess(DataEnvelope(MarkedRead))
  )
  .add(
    HttpApiEndpoint.del("deleteCategory", BELL)
      .annotate(OpenApi.Summary, "Delete a category")
      .annotate(OpenApi.Description, "Deletes the caller's items of one category")
      .setUrlParams(CategoryParams)
      .addSuccess(DataEnvelope(DeletedMany))
  )
  .add(
    HttpApiEndpoint.get("get", `${BELL}/:id`)
      .annotate(OpenApi.Summary, "Get a notification")
      .annotate(OpenApi.Description, "One of the caller's items; another member's is a 404")
      .setPath(NotificationIdPath)
      .addSuccess(DataEnvelope(Notification))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("read", `${BELL}/:id/read`)
      .annotate(OpenApi.Summary, "Mark read")
      .annotate(
        OpenApi.Description,
        "Marks one of the caller's items read and answers it; `read_at` keeps the first reading"
      )
      .setPath(NotificationIdPath)
      .addSuccess(DataEnvelope(Notification))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.del("delete", `${BELL}/:id`)
      .annotate(OpenApi.Summary, "Delete a notification")
      .annotate(OpenApi.Description, "Deletes one of the caller's items")
      .setPath(NotificationIdPath)
      .addSuccess(DataEnvelope(DeletedOne))
      .addError(httpError(NotFound))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** Digest frequency per context, and muting members (decisions D12, D12a). */
export class NotificationSettingsApi extends HttpApiGroup.make("notificationSettings")
  .annotate(OpenApi.Title, "Notification settings")
  .annotate(OpenApi.Description, "How often e-mail digests come, per context, and whom the caller has muted")
  .add(
    HttpApiEndpoint.get("settings", `${BELL}/settings`)
      .annotate(OpenApi.Summary, "My frequency settings")
      .annotate(OpenApi.Description, "E-mail digest frequency per context (`global`, `group`, `thread`)")
      .addSuccess(DataEnvelope(Schema.Array(NotificationSetting)))
  )
  .add(
    HttpApiEndpoint.post("saveSetting", `${BELL}/settings`)
      .annotate(OpenApi.Summary, "Set a frequency")
      .annotate(OpenApi.Description, "Upserts the setting of one context (`context_id` null for `global`)")
      .setPayload(NotificationSetting)
      .addSuccess(DataEnvelope(NotificationSetting))
  )
  .add(
    HttpApiEndpoint.post("mute", "/api/v2/users/:id/mute")
      .annotate(OpenApi.Summary, "Mute a member")
      .annotate(OpenApi.Description, "Their actions notify the caller on no channel any more")
      .setPath(UserIdPath)
      .addSuccess(DataEnvelope(MuteState))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.del("unmute", "/api/v2/users/:id/mute")
      .annotate(OpenApi.Summary, "Unmute a member")
      .annotate(OpenApi.Description, "Their actions notify the caller again")
      .setPath(UserIdPath)
      .addSuccess(DataEnvelope(MuteState))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.get("muted", "/api/v2/users/me/muted")
      .annotate(OpenApi.Summary, "Members I muted")
      .annotate(OpenApi.Description, "Newest first, with when each was muted")
      .addSuccess(DataEnvelope(Schema.Array(MutedUser)))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
