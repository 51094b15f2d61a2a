import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminReport,
  AdminReportDetail,
  AdminReportsParams,
  DismissReport,
  ReportAlreadyProcessed,
  ReportIdPath,
  ReportStatsView,
  ResolveReport
} from "./AdminReport.js"

const REPORTS = "/api/v2/admin/reports"

/** Members' reports, handled by the community's admins (decisions D14, D15, D17 "Moderation"). */
export class AdminReportsApi extends HttpApiGroup.make("adminReports")
  .annotate(OpenApi.Title, "Admin: member reports")
  .annotate(
    OpenApi.Description,
    "Reports members made about content or other members: `open` until an admin resolves (acting on it) or " +
      "dismisses it"
  )
  .add(
    HttpApiEndpoint.get("list", REPORTS)
      .annotate(OpenApi.Summary, "List member reports")
      .setUrlParams(AdminReportsParams)
      .addSuccess(OffsetPage(AdminReport))
      .annotate(OpenApi.Description, "Every report, newest first; filters status, target_type, safeguarding, reporter")
  )
  .add(
    HttpApiEndpoint.get("stats", `${REPORTS}/stats`)
      .annotate(OpenApi.Summary, "Member report statistics")
      .addSuccess(DataEnvelope(ReportStatsView))
      .annotate(OpenApi.Description, "Reports per state, open safeguarding reports and all reports, counted live")
  )
  .add(
    HttpApiEndpoint.get("get", `${REPORTS}/:id`)
      .annotate(OpenApi.Summary, "Get a member report")
      .setPath(ReportIdPath)
      .addSuccess(DataEnvelope(AdminReportDetail))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "The report and its `target` as it is now (read from the feature that owns it)")
  )
  .add(
    HttpApiEndpoint.post("resolve", `${REPORTS}/:id/resolve`)
      .annotate(OpenApi.Summary, "Resolve a member report")
      .annotate(AuditAction, "report.resolved")
      .setPath(ReportIdPath)
      .setPayload(ResolveReport)
      .addSuccess(DataEnvelope(AdminReportDetail))
      .addError(httpError(NotFound))
      .addError(httpError(ReportAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "Does the `action` and marks the report `resolved`, in one transaction. `hide_content` hides the reported " +
          "post, comment or review (another kind of target, or one deleted since: 422 on `action`); " +
          "`suspend_member` suspends the reported member, or the author of the reported post, comment, review, " +
          "listing or event (a group, a message, a federated review or a deleted record: 422 on `action`). A " +
          "report no longer open → 409 `ALREADY_PROCESSED`"
      )
  )
  .add(
    HttpApiEndpoint.post("dismiss", `${REPORTS}/:id/dismiss`)
      .annotate(OpenApi.Summary, "Dismiss a member report")
      .annotate(AuditAction, "report.dismissed")
      .setPath(ReportIdPath)
      .setPayload(DismissReport)
      .addSuccess(DataEnvelope(AdminReportDetail))
      .addError(httpError(NotFound))
      .addError(httpError(ReportAlreadyProcessed))
      .annotate(
        OpenApi.Description,
        "Marks an open report `dismissed` (nothing done about its target); no longer open → 409 `ALREADY_PROCESSED`"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
