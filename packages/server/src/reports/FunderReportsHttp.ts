import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin } from "../platform/Policy.js"
import { FunderReportsService } from "./FunderReportsService.js"
import { exportTypes, ReportExports } from "./ReportExports.js"

/** The CSV's media type (RFC 4180 registers `text/csv`; the charset says UTF-8). */
export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8"

/** `/api/v2/admin/reports/{hours,members,social-value,export-types,{type}/export}` (decisions D15, D17). */
export const FunderReportsHttpLive = HttpApiBuilder.group(
  Api,
  "adminFunderReports",
  (handlers) =>
    Effect.gen(function*() {
      const reports = yield* FunderReportsService
      const exports = yield* ReportExports
      return handlers
        .handle("hours", ({ urlParams }) => requireTenantAdmin(Effect.map(reports.hours(urlParams), ok)))
        .handle("members", ({ urlParams }) => requireTenantAdmin(Effect.map(reports.members(urlParams), ok)))
        .handle("socialValue", ({ urlParams }) => requireTenantAdmin(Effect.map(reports.socialValue(urlParams), ok)))
        .handle(
          "updateSocialValueConfig",
          ({ payload }) => requireTenantAdmin(Effect.map(reports.updateSocialValueConfig(payload), ok))
        )
        .handle("exportTypes", () => requireTenantAdmin(Effect.succeed(ok(exportTypes))))
        .handle("export", ({ path, urlParams }) =>
          requireTenantAdmin(Effect.map(exports.csv(path.type, urlParams), (file) =>
            HttpServerResponse.stream(file.body, {
              contentType: CSV_CONTENT_TYPE,
              headers: {
                "content-disposition": `attachment; filename="${file.filename}"`,
                "cache-control": "no-store"
              }
            }))))
    })
)
