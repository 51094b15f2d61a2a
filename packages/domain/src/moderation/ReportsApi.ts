import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { CreateReport, Report } from "./Report.js"

/** Reports members make about content or other members (decisions D14, D14a); always available to members. */
export class ReportsApi extends HttpApiGroup.make("reports")
  .annotate(OpenApi.Title, "Reports")
  .annotate(OpenApi.Description, "Members report content or other members to the community's admins")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/reports")
      .annotate(OpenApi.Summary, "Report content or a member")
      .setPayload(CreateReport)
      .addSuccess(DataEnvelope(Report), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Opens a report about a member, listing, event, feed post, comment, review, group or message of this " +
          "community that the caller can see (404 on `target_id` otherwise; reporting oneself is 422). With " +
          "`safeguarding: true` the community's admins and coordinators get a bell at once"
      )
  )
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
