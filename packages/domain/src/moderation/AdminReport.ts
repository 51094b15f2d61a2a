import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserSummary } from "../identity/UserSummary.js"
import { BooleanParam, FilterId } from "./ModerationParams.js"
import { ReportId, ReportStatus, ReportTargetType } from "./Report.js"

/** What resolving a report does (decisions D17 "Moderation"). */
export const ReportAction = Schema.Literal("none", "hide_content", "suspend_member")
export type ReportAction = typeof ReportAction.Type

export const REPORT_NOTE_MAX = 2000

/**
 * The reported record as it is now, read from its owner when the admin opens the report. `exists` is false when
 * it has been deleted since; the other fields are null where they do not apply to the kind of record.
 */
export const ReportTargetSnapshot = Schema.Struct({
  type: ReportTargetType,
  id: RecordId,
  exists: Schema.Boolean.annotations({ description: "False: the record has been deleted since the report" }),
  title: Schema.NullOr(Schema.String).annotations({
    description: "A member's name; a listing's or event's title; a group's name"
  }),
  body: Schema.NullOr(Schema.String).annotations({
    description: "The text: a post's, comment's or review's; a listing's or event's description"
  }),
  author: Schema.NullOr(UserSummary).annotations({
    description: "Who wrote or owns it (for a member: the member); null for groups, messages and federated reviews"
  }),
  status: Schema.NullOr(Schema.String).annotations({
    description: "A member's, listing's, event's or group's status"
  }),
  is_hidden: Schema.NullOr(Schema.Boolean).annotations({ description: "Posts, comments and reviews" })
})
export type ReportTargetSnapshot = typeof ReportTargetSnapshot.Type

const adminReportFields = {
  id: ReportId,
  reporter: UserSummary.annotations({ description: "Who reported it" }),
  target_type: ReportTargetType,
  target_id: RecordId,
  reason: Schema.String,
  details: Schema.NullOr(Schema.String),
  safeguarding: Schema.Boolean,
  status: ReportStatus,
  action: Schema.NullOr(ReportAction).annotations({ description: "What resolving it did; null unless resolved" }),
  note: Schema.NullOr(Schema.String).annotations({ description: "The admin's note on resolving or dismissing it" }),
  resolved_by: Schema.NullOr(UserSummary).annotations({ description: "Who resolved or dismissed it" }),
  resolved_at: Schema.NullOr(Schema.DateTimeUtc),
  created_at: Schema.DateTimeUtc
}

/** A member's report as admins see it (decisions D14, D17). */
export class AdminReport extends Schema.Class<AdminReport>("AdminReport")(adminReportFields) {}

/** One report with what it is about, as it looks now. */
export class AdminReportDetail extends Schema.Class<AdminReportDetail>("AdminReportDetail")({
  ...adminReportFields,
  target: ReportTargetSnapshot
}) {}

/** `GET /api/v2/admin/reports?status=&target_type=&safeguarding=&reporter_id=&page=&per_page=`. */
export const AdminReportsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(ReportStatus).annotations({ description: "Only reports in this state" }),
  target_type: Schema.optional(ReportTargetType).annotations({ description: "Only reports about this kind" }),
  safeguarding: Schema.optional(BooleanParam).annotations({ description: "Only safeguarding reports, or only others" }),
  reporter_id: Schema.optional(FilterId).annotations({ description: "Only this member's reports" })
})
export type AdminReportsParams = typeof AdminReportsParams.Type

/** `GET /api/v2/admin/reports/stats` (decisions D17). */
export const ReportStatsView = Schema.Struct({
  open: Schema.Int,
  resolved: Schema.Int,
  dismissed: Schema.Int,
  safeguarding_open: Schema.Int.annotations({ description: "Open reports flagged as safeguarding concerns" }),
  total: Schema.Int
})
export type ReportStatsView = typeof ReportStatsView.Type

const Note = Schema.optionalWith(Schema.NullOr(TrimmedText(0, REPORT_NOTE_MAX)), { exact: true }).annotations({
  description: "For the record (at most 2000 characters); blank is the same as none"
})

/** `POST /api/v2/admin/reports/{id}/resolve`. */
export const ResolveReport = Schema.Struct({
  action: ReportAction.annotations({
    description: "`none`; `hide_content` hides the reported post, comment or review; `suspend_member` suspends the " +
      "reported member, or the author of the reported content"
  }),
  note: Note
})
export type ResolveReport = typeof ResolveReport.Type

/** `POST /api/v2/admin/reports/{id}/dismiss`: `{note?}`, or no body at all. */
export const DismissReport = Schema.Union(Schema.Struct({ note: Note }), Schema.Null).annotations({
  description: "Optional"
})
export type DismissReport = typeof DismissReport.Type

export const ReportIdPath = Schema.Struct({ id: PathId(ReportId) })

/** 409 `ALREADY_PROCESSED`: resolving or dismissing a report that is no longer open. */
export class ReportAlreadyProcessed
  extends ApiError<ReportAlreadyProcessed>()("ReportAlreadyProcessed", "ALREADY_PROCESSED", 409)
{}
