import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"

export const ReportId = RecordId.pipe(Schema.brand("ReportId"))
export type ReportId = typeof ReportId.Type

/** What a member may report (decisions D14). */
export const ReportTargetType = Schema.Literal(
  "user",
  "listing",
  "event",
  "feed_post",
  "comment",
  "review",
  "group",
  "message"
)
export type ReportTargetType = typeof ReportTargetType.Type

/** `open` until an admin resolves or dismisses it (decisions D15, D17). */
export const ReportStatus = Schema.Literal("open", "resolved", "dismissed")
export type ReportStatus = typeof ReportStatus.Type

export const REPORT_REASON_MAX = 500
export const REPORT_DETAILS_MAX = 5000

/** A member's report, as its reporter gets it back (decisions D14a: exactly these fields). */
export class Report extends Schema.Class<Report>("Report")({
  id: ReportId,
  target_type: ReportTargetType,
  target_id: RecordId,
  reason: Schema.String,
  details: Schema.NullOr(Schema.String),
  safeguarding: Schema.Boolean,
  status: ReportStatus,
  created_at: Schema.DateTimeUtc
}) {}

/** `POST /api/v2/reports`. */
export const CreateReport = Schema.Struct({
  target_type: ReportTargetType,
  target_id: RecordId.annotations({ description: "The reported record's id; it must be one the caller can see" }),
  reason: TrimmedText(1, REPORT_REASON_MAX).annotations({ description: "Why, in a few words" }),
  details: Schema.optionalWith(Schema.NullOr(TrimmedText(0, REPORT_DETAILS_MAX)), { exact: true }).annotations({
    description: "More about what happened; blank is the same as none"
  }),
  safeguarding: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
    description: "Someone may be at risk: the community's admins and coordinators are told at once (default false)"
  })
})
export type CreateReport = typeof CreateReport.Type
