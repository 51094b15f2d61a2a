import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  HoursReport,
  MAX_REPORT_MONTHS,
  MembersReport,
  ReportExportDescription,
  ReportExportPath,
  ReportRangeParams,
  SocialValueReport
} from "./FunderReports.js"
import { SocialValueConfig, SocialValueConfigInput } from "./SocialValue.js"

const REPORTS = "/api/v2/admin/reports"

/** A CSV file: RFC 4180, UTF-8, a header row, CRLF line ends. */
export const CsvFile = HttpApiSchema.Text({ contentType: "text/csv; charset=utf-8" }).annotations({
  description: "RFC 4180 CSV in UTF-8 with a header row, sent as an attachment (`<type>-<date>.csv`)"
})

const RANGE = `\`from\`/\`to\` are days of the community's time zone; \`from\` after \`to\` or a range over ` +
  `${MAX_REPORT_MONTHS} months is 422 on the parameter`

/**
 * Reports that funders accept (decisions D15, D17 "Funder reports"): hours, members and social value of a date
 * range, computed live from the ledger and the records, and their CSV exports, streamed.
 */
export class AdminFunderReportsApi extends HttpApiGroup.make("adminFunderReports")
  .annotate(OpenApi.Title, "Admin: funder reports")
  .annotate(
    OpenApi.Description,
    "Hours, members and social value of a date range, and CSV exports of members, transactions, hours, events, " +
      "organisations and social value: tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.get("hours", `${REPORTS}/hours`)
      .annotate(OpenApi.Summary, "Hours report")
      .setUrlParams(ReportRangeParams)
      .addSuccess(DataEnvelope(HoursReport))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, `Hours given, by month, category and organisation. ${RANGE}`)
  )
  .add(
    HttpApiEndpoint.get("members", `${REPORTS}/members`)
      .annotate(OpenApi.Summary, "Members report")
      .setUrlParams(ReportRangeParams)
      .addSuccess(DataEnvelope(MembersReport))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, `Members, active members, new members by month, members by status. ${RANGE}`)
  )
  .add(
    HttpApiEndpoint.get("socialValue", `${REPORTS}/social-value`)
      .annotate(OpenApi.Summary, "Social value report")
      .setUrlParams(ReportRangeParams)
      .addSuccess(DataEnvelope(SocialValueReport))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, `The range's hours × the community's hourly value. ${RANGE}`)
  )
  .add(
    HttpApiEndpoint.put("updateSocialValueConfig", `${REPORTS}/social-value/config`)
      .annotate(OpenApi.Summary, "Set the hourly value")
      .annotate(AuditAction, "reports.social-value.updated")
      .setPayload(SocialValueConfigInput)
      .addSuccess(DataEnvelope(SocialValueConfig))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The community's hourly value (0..10000) and ISO 4217 currency; keys left out keep their values. Answers " +
          "the whole setting"
      )
  )
  .add(
    HttpApiEndpoint.get("exportTypes", `${REPORTS}/export-types`)
      .annotate(OpenApi.Summary, "List report exports")
      .addSuccess(DataEnvelope(Schema.Array(ReportExportDescription)))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "The CSV exports, each with its label, description and columns")
  )
  .add(
    HttpApiEndpoint.get("export", `${REPORTS}/:type/export`)
      .annotate(OpenApi.Summary, "Export a report as CSV")
      .setPath(ReportExportPath)
      .setUrlParams(ReportRangeParams)
      .addSuccess(CsvFile)
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        `The rows of one export as a CSV attachment, streamed as the database reads them. ${RANGE}; an unknown ` +
          "type is 404"
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
