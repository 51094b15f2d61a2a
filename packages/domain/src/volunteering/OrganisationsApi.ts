import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound, RateLimited } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { VolunteeringFeature } from "../http/FeatureGate.js"
import { RateLimit } from "../http/RateLimit.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { memberAction } from "./MemberAction.js"
import {
  DirectoryOrganisation,
  DirectoryParams,
  MyOrganisation,
  OrganisationDetail,
  OrganisationIdPath,
  RegisterOrganisation,
  UpdateOrganisation
} from "./Organisation.js"

/** Spec "Limits": organisation registration, 5 per minute per IP. */
export class OrganisationRegistrationRateLimit
  extends RateLimit<OrganisationRegistrationRateLimit>()("OrganisationRegistrationRateLimit", {
    limit: 5,
    window: "1 minute",
    scope: "ip"
  })
{}

/** Spec "Limits": organisation directory, 60 per minute (per IP, decisions D10). */
export class OrganisationDirectoryRateLimit
  extends RateLimit<OrganisationDirectoryRateLimit>()("OrganisationDirectoryRateLimit", {
    limit: 60,
    window: "1 minute",
    scope: "ip"
  })
{}

/** Spec "Limits": organisation detail, 120 per minute (per IP, decisions D10). */
export class OrganisationDetailRateLimit
  extends RateLimit<OrganisationDetailRateLimit>()("OrganisationDetailRateLimit", {
    limit: 120,
    window: "1 minute",
    scope: "ip"
  })
{}

const ORGANISATIONS = "/api/v2/volunteering/organisations"

/**
 * The public organisation directory, registration and the profile edit of its owners (spec "Organisations and
 * reviews"); every route answers 403 `FEATURE_DISABLED` when `volunteering` is off.
 */
export class OrganisationsApi extends HttpApiGroup.make("organisations")
  .annotate(OpenApi.Title, "Volunteering: organisations")
  .annotate(
    OpenApi.Description,
    "The public organisation directory, registration, and the profile edits of their owners; every route " +
      "answers 403 `FEATURE_DISABLED` when `volunteering` is off"
  )
  .add(
    HttpApiEndpoint.get("directory", ORGANISATIONS)
      .annotate(OpenApi.Summary, "List organisations")
      .setUrlParams(DirectoryParams)
      .addSuccess(CursorPage(DirectoryOrganisation))
      .addError(httpError(RateLimited))
      .middleware(OrganisationDirectoryRateLimit)
      .annotate(
        OpenApi.Description,
        "Active organisations of this community, newest first, with their owner and aggregates; no token needed"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${ORGANISATIONS}/:id`)
      .annotate(OpenApi.Summary, "Get an organisation")
      .setPath(OrganisationIdPath)
      .addSuccess(DataEnvelope(OrganisationDetail))
      .addError(httpError(NotFound))
      .addError(httpError(RateLimited))
      .middleware(OrganisationDetailRateLimit)
      .annotate(OpenApi.Description, "An active organisation with its aggregates; pending or suspended ones are 404")
  )
  .add(
    HttpApiEndpoint.get("mine", "/api/v2/volunteering/my-organisations")
      .annotate(OpenApi.Summary, "List my organisations")
      .addSuccess(DataEnvelope(Schema.Array(MyOrganisation)))
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "Organisations the caller created or runs as an active owner or admin, any status, newest first"
      )
  )
  .add(
    HttpApiEndpoint.post("register", ORGANISATIONS)
      .annotate(OpenApi.Summary, "Register an organisation")
      .setPayload(RegisterOrganisation)
      .addSuccess(DataEnvelope(MyOrganisation), { status: 201 })
      .addError(httpError(Forbidden))
      .addError(httpError(AlreadyExists))
      .addError(httpError(RateLimited))
      // Endpoint middleware runs last-added first: tenant, then the caller, then the rate limit.
      .middleware(OrganisationRegistrationRateLimit)
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "Registers an organisation as `pending` with the caller as its owner; a name taken in this community " +
          "(case-insensitive) is 409 `ALREADY_EXISTS`"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${ORGANISATIONS}/:id`)
      .annotate(OpenApi.Summary, "Update my organisation")
      .setPath(OrganisationIdPath)
      .setPayload(UpdateOrganisation)
      .addSuccess(DataEnvelope(MyOrganisation))
      .addError(httpError(AlreadyExists))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "Profile fields; the creator, active owners and admins, or a site super-admin (answered with role " +
          "`admin`); not while suspended"
      )
  )
  .middleware(VolunteeringFeature)
  // Per endpoint and last, so that it wraps each endpoint's own middleware: the tenant is always resolved first.
  .middlewareEndpoints(TenantMiddleware)
{}
