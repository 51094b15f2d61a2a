import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { httpError } from "../http/ApiError.js"
import { CursorPage } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { FederatedEvent, FederatedGroup, FederatedListing, ListFederatedParams } from "./FederatedRecords.js"
import { FederationDisabled } from "./FederationErrors.js"

const FEDERATION = "/api/v2/federation"

const GATE = "Answers 503 `FEDERATION_DISABLED` (with `Retry-After: 3600`) while the platform's federation, the " +
  "community's whitelist or the community's"

/**
 * Members browse what partner communities shared by webhook (decisions D13a "Ingest"): newest first, only while the
 * matching federation toggle is on, only records of active partners.
 */
export class FederatedBrowseApi extends HttpApiGroup.make("federatedBrowse")
  .annotate(OpenApi.Title, "Federated records")
  .annotate(
    OpenApi.Description,
    "Events, listings and groups that partner communities shared with this one, for its members. Records of " +
      "partners that are not active (pending, suspended, failed, deleted) are left out"
  )
  .add(
    HttpApiEndpoint.get("events", `${FEDERATION}/events`)
      .annotate(OpenApi.Summary, "List partners' events")
      .setUrlParams(ListFederatedParams)
      .addSuccess(CursorPage(FederatedEvent))
      .addError(httpError(FederationDisabled))
      .annotate(OpenApi.Description, `Newest first. ${GATE} \`events\` toggle is off`)
  )
  .add(
    HttpApiEndpoint.get("listings", `${FEDERATION}/listings`)
      .annotate(OpenApi.Summary, "List partners' listings")
      .setUrlParams(ListFederatedParams)
      .addSuccess(CursorPage(FederatedListing))
      .addError(httpError(FederationDisabled))
      .annotate(OpenApi.Description, `Offers and requests, newest first. ${GATE} \`listings\` toggle is off`)
  )
  .add(
    HttpApiEndpoint.get("groups", `${FEDERATION}/groups`)
      .annotate(OpenApi.Summary, "List partners' groups")
      .setUrlParams(ListFederatedParams)
      .addSuccess(CursorPage(FederatedGroup))
      .addError(httpError(FederationDisabled))
      .annotate(OpenApi.Description, `Newest first. ${GATE} \`groups\` toggle is off`)
  )
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
