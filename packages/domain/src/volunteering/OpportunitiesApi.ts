import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { VolunteeringFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { memberAction } from "./MemberAction.js"
import {
  ApplicationIdPath,
  CreateOpportunity,
  HourLog,
  HourLogIdPath,
  Opportunity,
  OpportunityIdPath,
  UpdateOpportunity,
  VolunteerApplication,
  VolunteeringPageParams
} from "./Opportunity.js"
import { OrganisationIdPath } from "./Organisation.js"
import {
  AlreadyReviewed,
  ApplyToOpportunity,
  LogHours,
  OpportunityListParams,
  ReviewRequest
} from "./VolunteerInputs.js"

const VOLUNTEERING = "/api/v2/volunteering"
const OPPORTUNITIES = `${VOLUNTEERING}/opportunities`

/**
 * Opportunities of organisations and applications to them (decisions D7); every route answers 403
 * `FEATURE_DISABLED` when `volunteering` is off.
 */
export class OpportunitiesApi extends HttpApiGroup.make("opportunities")
  .annotate(OpenApi.Title, "Volunteering: opportunities")
  .annotate(
    OpenApi.Description,
    "Opportunities of organisations and applications to them; every route answers 403 `FEATURE_DISABLED` when " +
      "`volunteering` is off"
  )
  .add(
    HttpApiEndpoint.post("create", `${VOLUNTEERING}/organisations/:id/opportunities`)
      .annotate(OpenApi.Summary, "Create an opportunity")
      .setPath(OrganisationIdPath)
      .setPayload(CreateOpportunity)
      .addSuccess(DataEnvelope(Opportunity), { status: 201 })
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "The organisation's creator, active owners and admins, or a site super-admin; the organisation must be " +
          "active. Status `open` unless given"
      )
  )
  .add(
    HttpApiEndpoint.get("list", OPPORTUNITIES)
      .annotate(OpenApi.Summary, "List opportunities")
      .setUrlParams(OpportunityListParams)
      .addSuccess(CursorPage(Opportunity))
      .annotate(OpenApi.Description, "Open opportunities of active organisations, newest first; no token needed")
  )
  .add(
    HttpApiEndpoint.get("get", `${OPPORTUNITIES}/:id`)
      .annotate(OpenApi.Summary, "Get an opportunity")
      .setPath(OpportunityIdPath)
      .addSuccess(DataEnvelope(Opportunity))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "An open or closed opportunity of an active organisation; no token needed (others are 404)"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${OPPORTUNITIES}/:id`)
      .annotate(OpenApi.Summary, "Update an opportunity")
      .setPath(OpportunityIdPath)
      .setPayload(UpdateOpportunity)
      .addSuccess(DataEnvelope(Opportunity))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "The organisation's managers, not while it is suspended; `{\"status\": \"closed\"}` closes it"
      )
  )
  .add(
    HttpApiEndpoint.post("apply", `${OPPORTUNITIES}/:id/apply`)
      .annotate(OpenApi.Summary, "Apply to an opportunity")
      .setPath(OpportunityIdPath)
      .setPayload(ApplyToOpportunity)
      .addSuccess(DataEnvelope(VolunteerApplication), { status: 201 })
      .addError(httpError(AlreadyExists))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "Applies as `pending`; one application per member per opportunity (409 `ALREADY_EXISTS`); a closed " +
          "opportunity is 422 `VALIDATION_ERROR` (field `opportunity`)"
      )
  )
  .middleware(VolunteeringFeature)
  // Per endpoint and last, so that it wraps each endpoint's own middleware: the tenant is always resolved first.
  .middlewareEndpoints(TenantMiddleware)
{}

/** Decisions on applications and the caller's own applications (decisions D7). */
export class ApplicationsApi extends HttpApiGroup.make("applications")
  .annotate(OpenApi.Title, "Volunteering: applications")
  .annotate(OpenApi.Description, "Decisions on applications, and the caller's own applications")
  .add(
    HttpApiEndpoint.put("review", `${VOLUNTEERING}/applications/:id`)
      .annotate(OpenApi.Summary, "Decide on an application")
      .setPath(ApplicationIdPath)
      .setPayload(ReviewRequest)
      .addSuccess(DataEnvelope(VolunteerApplication))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "The organisation's managers approve or decline (not their own application; not while the organisation " +
          "is suspended). A decision may be changed later; the same decision again changes nothing"
      )
  )
  .add(
    HttpApiEndpoint.get("mine", `${VOLUNTEERING}/my-applications`)
      .annotate(OpenApi.Summary, "List my applications")
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(VolunteerApplication))
      .middleware(Authentication)
      .annotate(OpenApi.Description, "The caller's applications, newest first")
  )
  .middleware(VolunteeringFeature)
  .middlewareEndpoints(TenantMiddleware)
{}

/** Hours volunteers log and their review, with auto-pay from the organisation's wallet (decisions D7). */
export class HoursApi extends HttpApiGroup.make("hours")
  .annotate(OpenApi.Title, "Volunteering: hours")
  .annotate(OpenApi.Description, "Hours volunteers log and their review, with auto-pay from the organisation's wallet")
  .add(
    HttpApiEndpoint.post("log", `${VOLUNTEERING}/hours`)
      .annotate(OpenApi.Summary, "Log volunteer hours")
      .setPayload(LogHours)
      .addSuccess(DataEnvelope(HourLog), { status: 201 })
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "Logs hours as `pending`; needs an approved application to the (active) organisation"
      )
  )
  .add(
    HttpApiEndpoint.put("review", `${VOLUNTEERING}/hours/:id`)
      .annotate(OpenApi.Summary, "Review logged hours")
      .setPath(HourLogIdPath)
      .setPayload(ReviewRequest)
      .addSuccess(DataEnvelope(HourLog))
      .addError(httpError(AlreadyReviewed))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "The organisation's managers, never for their own hours. Approval with auto-pay on pays the volunteer " +
          "from the organisation's wallet exactly once; when the wallet cannot cover it the approval stands and " +
          "`payment.status` is `insufficient_balance` (approving again retries the payment). The opposite of an " +
          "earlier decision is 409 `ALREADY_REVIEWED`"
      )
  )
  .add(
    HttpApiEndpoint.get("mine", `${VOLUNTEERING}/my-hours`)
      .annotate(OpenApi.Summary, "List my logged hours")
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(HourLog))
      .middleware(Authentication)
      .annotate(OpenApi.Description, "The caller's hour logs, newest first")
  )
  .middleware(VolunteeringFeature)
  .middlewareEndpoints(TenantMiddleware)
{}
