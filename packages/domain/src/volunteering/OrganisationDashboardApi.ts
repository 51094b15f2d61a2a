import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { VolunteeringFeature } from "../http/FeatureGate.js"
import { RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { UserSummary } from "../identity/UserSummary.js"
import { Credits } from "../ledger/Credits.js"
import { IdempotencyConflict, InsufficientBalance } from "../ledger/LedgerErrors.js"
import { TransactionId, WalletTransaction } from "../ledger/Transaction.js"
import { IdempotencyHeaders } from "../ledger/WalletApi.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { ApplicationStatus, HourLog, VolunteerApplication, VolunteeringPageParams } from "./Opportunity.js"
import { OrganisationIdPath } from "./Organisation.js"

/** `GET .../stats`: the owner's totals (spec "Organisations and reviews"). */
export const OrganisationStatsView = Schema.Struct({
  volunteers: Schema.Int.annotations({ description: "Distinct members with an approved application" }),
  pending_applications: Schema.Int.annotations({ description: "Applications awaiting a decision" }),
  pending_hours: Schema.Number.annotations({ description: "Sum of logged hours awaiting review" }),
  approved_hours: Schema.Number.annotations({ description: "Sum of approved hours" }),
  active_opportunities: Schema.Int.annotations({ description: "Open opportunities" }),
  balance: Schema.Number.annotations({ description: "The organisation wallet's balance in hours" }),
  auto_pay_enabled: Schema.Boolean.annotations({ description: "Approved hours are paid from the wallet" })
})
export type OrganisationStatsView = typeof OrganisationStatsView.Type

/** One approved volunteer of the organisation. */
export const DashboardVolunteer = Schema.Struct({
  user: UserSummary,
  total_hours: Schema.Number.annotations({ description: "Approved hours of this member for the organisation" }),
  application_count: Schema.Int.annotations({ description: "All their applications to the organisation" }),
  first_approved_at: Schema.DateTimeUtc.annotations({ description: "When their first application was approved" })
})
export type DashboardVolunteer = typeof DashboardVolunteer.Type

/** `?cursor=&per_page=&status=` of the dashboard's application list. */
export const DashboardApplicationsParams = Schema.Struct({
  ...VolunteeringPageParams.fields,
  status: Schema.optional(ApplicationStatus).annotations({ description: "Only applications with this status" })
})
export type DashboardApplicationsParams = typeof DashboardApplicationsParams.Type

/** `?cursor=&per_page=` of the organisation's transaction log; the cursor is the last transaction's id. */
export const WalletTransactionsParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(TransactionId)),
  per_page: Schema.optional(PerPageParam(100)).annotations({ description: "Default 20" })
})
export type WalletTransactionsParams = typeof WalletTransactionsParams.Type

/** How many transactions `GET .../wallet` shows. */
export const RECENT_WALLET_TRANSACTIONS = 5

/** `GET .../wallet`: balance and a summary of recent activity. */
export const OrganisationWallet = Schema.Struct({
  balance: Schema.Number.annotations({ description: "Hours in the organisation wallet" }),
  auto_pay_enabled: Schema.Boolean,
  pending_hours: Schema.Number.annotations({ description: "Logged hours awaiting review (what auto-pay may owe)" }),
  recent_transactions: Schema.Array(WalletTransaction).annotations({
    description: `Up to ${RECENT_WALLET_TRANSACTIONS} newest; direction from the organisation's side`
  })
})
export type OrganisationWallet = typeof OrganisationWallet.Type

/** `POST .../wallet/deposit` (decisions D7). */
export const DepositRequest = Schema.Struct({
  amount: Credits,
  note: Schema.optional(Schema.Trim.pipe(Schema.maxLength(500, { message: () => "must be at most 500 characters" })))
    .annotations({ description: "Shown as the transaction's description" })
})
export type DepositRequest = typeof DepositRequest.Type

export const DepositResult = Schema.Struct({
  balance: Schema.Number.annotations({ description: "The organisation wallet's balance after the deposit" }),
  transaction_id: RecordId
})
export type DepositResult = typeof DepositResult.Type

export const AutoPayRequest = Schema.Struct({ enabled: Schema.Boolean })
export type AutoPayRequest = typeof AutoPayRequest.Type
export const AutoPayResult = Schema.Struct({ auto_pay_enabled: Schema.Boolean })

const ORGANISATION = "/api/v2/volunteering/organisations/:id"

/**
 * The organisation owner's dashboards and wallet (spec "Organisations and reviews"): readable by its creator, its
 * active owners and admins, and site super-admins, in any status; writes are refused while it is suspended. The
 * only member routes that show the balance and the auto-pay flag.
 */
export class OrganisationDashboardApi extends HttpApiGroup.make("organisationDashboard")
  .annotate(OpenApi.Title, "Volunteering: organisation dashboard")
  .add(
    HttpApiEndpoint.get("stats", `${ORGANISATION}/stats`)
      .annotate(OpenApi.Summary, "Get the organisation's statistics")
      .setPath(OrganisationIdPath)
      .addSuccess(DataEnvelope(OrganisationStatsView))
      .annotate(
        OpenApi.Description,
        "Totals: volunteers, pending applications and hours, approved hours, open opportunities, wallet, auto-pay"
      )
  )
  .add(
    HttpApiEndpoint.get("volunteers", `${ORGANISATION}/volunteers`)
      .annotate(OpenApi.Summary, "List the organisation's volunteers")
      .setPath(OrganisationIdPath)
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(DashboardVolunteer))
      .annotate(OpenApi.Description, "Approved volunteers, highest user id first; the cursor is the last user id")
  )
  .add(
    HttpApiEndpoint.get("applications", `${ORGANISATION}/applications`)
      .annotate(OpenApi.Summary, "List applications to the organisation")
      .setPath(OrganisationIdPath)
      .setUrlParams(DashboardApplicationsParams)
      .addSuccess(CursorPage(VolunteerApplication))
      .annotate(OpenApi.Description, "Applications to the organisation's opportunities, newest first")
  )
  .add(
    HttpApiEndpoint.get("pendingHours", `${ORGANISATION}/hours/pending`)
      .annotate(OpenApi.Summary, "List hours awaiting review")
      .setPath(OrganisationIdPath)
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(HourLog))
      .annotate(OpenApi.Description, "Logged hours awaiting review, newest first")
  )
  .add(
    HttpApiEndpoint.get("wallet", `${ORGANISATION}/wallet`)
      .annotate(OpenApi.Summary, "Get the organisation's wallet")
      .setPath(OrganisationIdPath)
      .addSuccess(DataEnvelope(OrganisationWallet))
      .annotate(OpenApi.Description, "Balance, auto-pay, hours awaiting review and the newest transactions")
  )
  .add(
    HttpApiEndpoint.get("walletTransactions", `${ORGANISATION}/wallet/transactions`)
      .annotate(OpenApi.Summary, "List the organisation wallet's transactions")
      .setPath(OrganisationIdPath)
      .setUrlParams(WalletTransactionsParams)
      .addSuccess(CursorPage(WalletTransaction))
      .annotate(OpenApi.Description, "The wallet's transactions, newest first; direction from the organisation's side")
  )
  .add(
    HttpApiEndpoint.post("deposit", `${ORGANISATION}/wallet/deposit`)
      .annotate(OpenApi.Summary, "Deposit credits into the organisation's wallet")
      .setPath(OrganisationIdPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(DepositRequest)
      .addSuccess(DataEnvelope(DepositResult))
      .addError(httpError(InsufficientBalance))
      .addError(httpError(IdempotencyConflict))
      .annotate(
        OpenApi.Description,
        "Moves credits from the caller's own wallet into the organisation's (Idempotency-Key honoured); " +
          "refused while the organisation is suspended"
      )
  )
  .add(
    HttpApiEndpoint.put("autoPay", `${ORGANISATION}/wallet/auto-pay`)
      .annotate(OpenApi.Summary, "Switch auto-pay")
      .setPath(OrganisationIdPath)
      .setPayload(AutoPayRequest)
      .addSuccess(DataEnvelope(AutoPayResult))
      .annotate(
        OpenApi.Description,
        "Turns paying approved hours from the wallet on or off; refused while the organisation is suspended"
      )
  )
  .addError(httpError(NotFound))
  .addError(httpError(Forbidden))
  .annotate(OpenApi.Description, "Organisation dashboards: its creator, active owner/admin members, site super-admins")
  .middleware(VolunteeringFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
