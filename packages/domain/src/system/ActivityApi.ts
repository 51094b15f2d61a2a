import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError } from "../http/ApiError.js"
import { isCalendarDate } from "../http/CalendarDate.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { UserId } from "../identity/User.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

/** Who did an admin write: the user and their name (null when the account is gone). */
export const AuditActor = Schema.Struct({ id: UserId, name: Schema.String })

/** One admin write (decisions D15, D17): who did what to which record, when. */
export const AuditEntry = Schema.Struct({
  id: RecordId,
  actor: Schema.NullOr(AuditActor),
  action: Schema.String.annotations({
    description: "What was done, e.g. `users.approve`, `categories.created`, `config.features.updated`"
  }),
  target_type: Schema.String.annotations({ description: "The area written to: `users`, `categories`, `config` …" }),
  target_id: Schema.NullOr(Schema.String).annotations({ description: "The record written to, when there is one" }),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "`method`, `path`, `status` and the request body (`request`) with secrets redacted"
  }),
  created_at: Schema.DateTimeUtc
})
export type AuditEntry = typeof AuditEntry.Type

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

/** `YYYY-MM-DD` (a whole UTC day) or an ISO date-time with its zone. */
export const isActivityTime = (value: string) =>
  isCalendarDate(value) || (DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)))

export const ActivityTime = Schema.String.pipe(
  Schema.filter(isActivityTime, {
    message: () => "must be a date (YYYY-MM-DD) or a date-time with its zone (2024-05-01T10:00:00Z)"
  })
)

const IdParam = Schema.NumberFromString.pipe(Schema.compose(UserId))
const NameParam = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

/** `GET /api/v2/admin/system/activity-log`: filters on actor, action, target type and time. */
export const ActivityLogParams = Schema.Struct({
  ...OffsetPageParams.fields,
  actor_id: Schema.optional(IdParam).annotations({ description: "Only this user's writes" }),
  action: Schema.optional(NameParam).annotations({ description: "Only this action (exact)" }),
  target_type: Schema.optional(NameParam).annotations({ description: "Only writes to this area (exact)" }),
  from: Schema.optional(ActivityTime).annotations({ description: "From this time on (a date: from its start, UTC)" }),
  to: Schema.optional(ActivityTime).annotations({ description: "Up to this time (a date: to its end, UTC)" })
})
export type ActivityLogParams = typeof ActivityLogParams.Type

/** A domain event of the community, as the dashboard lists it: what happened and when, never its payload. */
export const ActivityEvent = Schema.Struct({
  kind: Schema.Literal("event"),
  id: RecordId,
  event_type: Schema.String,
  created_at: Schema.DateTimeUtc
})

export const ActivityAudit = Schema.Struct({ kind: Schema.Literal("audit"), ...AuditEntry.fields })

export const ActivityItem = Schema.Union(ActivityAudit, ActivityEvent)
export type ActivityItem = typeof ActivityItem.Type

/** How many items the dashboard's activity shows (decisions D17). */
export const DASHBOARD_ACTIVITY_LIMIT = 50

/** The audit trail of the administrative catalogue: tenant admins and platform super-admins. */
export class AdminActivityApi extends HttpApiGroup.make("adminActivity")
  .annotate(OpenApi.Title, "Admin: activity")
  .annotate(OpenApi.Description, "Who changed what in the community: every admin write, and its domain events")
  .add(
    HttpApiEndpoint.get("log", "/api/v2/admin/system/activity-log")
      .annotate(OpenApi.Summary, "List the activity log")
      .annotate(
        OpenApi.Description,
        "Every admin write of this community, newest first; `from` after `to` is 422 on `from`"
      )
      .setUrlParams(ActivityLogParams)
      .addSuccess(OffsetPage(AuditEntry))
  )
  .add(
    HttpApiEndpoint.get("dashboard", "/api/v2/admin/dashboard/activity")
      .annotate(OpenApi.Summary, "Latest activity")
      .annotate(
        OpenApi.Description,
        `The latest ${DASHBOARD_ACTIVITY_LIMIT} admin writes (kind \`audit\`) and domain events (kind \`event\`), ` +
          "newest first"
      )
      .addSuccess(DataEnvelope(Schema.Array(ActivityItem)))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
