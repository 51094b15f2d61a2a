import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { CursorPage, DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { VolunteeringFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { IdempotencyConflict, InsufficientBalance } from "../ledger/LedgerErrors.js"
import { WalletTransaction } from "../ledger/Transaction.js"
import { IdempotencyHeaders } from "../ledger/WalletApi.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminCreateOrganisation,
  AdminOrganisation,
  AdminOrganisationMember,
  AdminOrganisationsParams,
  OrganisationStatusUpdate,
  OrganisationWalletAdjusted,
  OrganisationWalletAdjustment
} from "./AdminOrganisation.js"
import { VolunteeringPageParams } from "./Opportunity.js"
import { OrganisationIdPath, UpdateOrganisation } from "./Organisation.js"

const ORGANISATIONS = "/api/v2/admin/volunteering/organizations"

/**
 * Volunteering organisations for community admins (tenant admins and platform super-admins), gated on the
 * `volunteering` feature. The admin path keeps the spec's US spelling.
 */
export class AdminOrganisationsApi extends HttpApiGroup.make("adminOrganisations")
  .annotate(OpenApi.Title, "Admin: organisations")
  .annotate(
    OpenApi.Description,
    "Volunteering organisations for community admins (tenant admins and platform super-admins); gated on " +
      "`volunteering`"
  )
  .add(
    HttpApiEndpoint.get("list", ORGANISATIONS)
      .annotate(OpenApi.Summary, "List organisations (admin)")
      .setUrlParams(AdminOrganisationsParams)
      .addSuccess(OffsetPage(AdminOrganisation))
      .annotate(OpenApi.Description, "Organisations of every status with stats and balances, newest first")
  )
  .add(
    HttpApiEndpoint.post("create", ORGANISATIONS)
      .annotate(OpenApi.Summary, "Create an organisation")
      .setPayload(AdminCreateOrganisation)
      .addSuccess(DataEnvelope(AdminOrganisation), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "Creates an `active` organisation (no `pending` step) with its owner membership")
  )
  .add(
    HttpApiEndpoint.put("update", `${ORGANISATIONS}/:id`)
      .annotate(OpenApi.Summary, "Update an organisation (admin)")
      .annotate(
        OpenApi.Description,
        "Profile fields of an organisation in any status; a name taken in this community (case-insensitive) " +
          "is 409 `ALREADY_EXISTS`"
      )
      .setPath(OrganisationIdPath)
      .setPayload(UpdateOrganisation)
      .addSuccess(DataEnvelope(AdminOrganisation))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
  )
  .add(
    HttpApiEndpoint.put("setStatus", `${ORGANISATIONS}/:id/status`)
      .annotate(OpenApi.Summary, "Set an organisation's status")
      .setPath(OrganisationIdPath)
      .setPayload(OrganisationStatusUpdate)
      .addSuccess(DataEnvelope(AdminOrganisation))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "`active` or `suspended`, from any status; a suspended one leaves the directory")
  )
  .add(
    HttpApiEndpoint.get("members", `${ORGANISATIONS}/:id/members`)
      .annotate(OpenApi.Summary, "List an organisation's members")
      .setPath(OrganisationIdPath)
      .setUrlParams(OffsetPageParams)
      .addSuccess(OffsetPage(AdminOrganisationMember))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Memberships of every status, owners first, then admins, then by joining")
  )
  .add(
    HttpApiEndpoint.put("adjustWallet", `${ORGANISATIONS}/:id/wallet/adjust`)
      .annotate(OpenApi.Summary, "Adjust an organisation's wallet")
      .setPath(OrganisationIdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(OrganisationWalletAdjustment)
      .addSuccess(DataEnvelope(OrganisationWalletAdjusted))
      .addError(httpError(NotFound))
      .addError(httpError(InsufficientBalance))
      .addError(httpError(IdempotencyConflict))
      .annotate(
        OpenApi.Description,
        "Moves credits between the treasury and the organisation wallet; may not leave the wallet below 0"
      )
  )
  .add(
    HttpApiEndpoint.get("walletTransactions", `${ORGANISATIONS}/:id/wallet/transactions`)
      .annotate(OpenApi.Summary, "List an organisation wallet's transactions (admin)")
      .setPath(OrganisationIdPath)
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(WalletTransaction))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "The organisation wallet's transactions, newest first; direction is its own")
  )
  .addError(httpError(Forbidden))
  .middleware(VolunteeringFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
