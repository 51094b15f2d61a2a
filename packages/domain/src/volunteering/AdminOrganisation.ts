import { Schema } from "effect"
import { OffsetPageParams } from "../http/Cursor.js"
import { RecordId } from "../http/Ids.js"
import { UserSummary } from "../identity/UserSummary.js"
import { hasTwoDecimals } from "../ledger/Credits.js"
import { TransactionId } from "../ledger/Transaction.js"
import {
  DirectoryOrganisation,
  MemberRole,
  MemberStatus,
  OrganisationStatus,
  RegisterOrganisation,
  SearchParam
} from "./Organisation.js"

/**
 * An organisation as community admins see it: the directory fields and everything the public never sees (status,
 * wallet balance, auto-pay, member count).
 */
export class AdminOrganisation extends Schema.Class<AdminOrganisation>("AdminOrganisation")({
  ...DirectoryOrganisation.fields,
  review_count: Schema.Int,
  slug: Schema.String,
  status: OrganisationStatus,
  balance: Schema.Number.annotations({ description: "Wallet balance in hours" }),
  auto_pay_enabled: Schema.Boolean,
  member_count: Schema.Int.annotations({ description: "Active memberships (any role)" }),
  updated_at: Schema.DateTimeUtc
}) {}

/** `GET /api/v2/admin/volunteering/organizations`: every status, newest first. */
export const AdminOrganisationsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(
    OrganisationStatus.annotations({
      message: () => ({ message: "must be pending, active, approved or suspended", override: true })
    })
  ).annotations({ description: "Only organisations with this status" }),
  search: Schema.optional(SearchParam)
})
export type AdminOrganisationsParams = typeof AdminOrganisationsParams.Type

/** Admin-create: the registration fields and the owner (default: the calling admin). Created `active`. */
export const AdminCreateOrganisation = Schema.Struct({
  ...RegisterOrganisation.fields,
  owner_id: Schema.optionalWith(RecordId, { exact: true }).annotations({
    description: "An active member of this community; defaults to the caller (required for platform super-admins)"
  })
})
export type AdminCreateOrganisation = typeof AdminCreateOrganisation.Type

/** The only statuses an admin sets (spec "Organisation status"); `pending` and `approved` are not among them. */
export const AdminOrganisationStatus = Schema.Literal("active", "suspended").annotations({
  message: () => ({ message: "must be active or suspended", override: true })
})
export type AdminOrganisationStatus = typeof AdminOrganisationStatus.Type

export const OrganisationStatusUpdate = Schema.Struct({ status: AdminOrganisationStatus })
export type OrganisationStatusUpdate = typeof OrganisationStatusUpdate.Type

/** A membership of an organisation, as `GET /{id}/members` lists it (owners first). */
export class AdminOrganisationMember extends Schema.Class<AdminOrganisationMember>("AdminOrganisationMember")({
  id: RecordId.annotations({ description: "Membership id" }),
  user: UserSummary,
  role: MemberRole,
  status: MemberStatus,
  joined_at: Schema.DateTimeUtc
}) {}

/** A signed amount of hours: not 0, at most 2 decimals, at most 1,000,000 either way. */
export const SignedCredits = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.filter((n) => n !== 0, { message: () => "must not be 0" }),
  Schema.between(-1_000_000, 1_000_000, { message: () => "must be between -1000000 and 1000000" }),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals" })
).annotations({ description: "Hours; positive pays in from the treasury, negative pays back to it" })

/** `PUT /{id}/wallet/adjust`. */
export const OrganisationWalletAdjustment = Schema.Struct({
  amount: SignedCredits,
  reason: Schema.Trim.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(500, { message: () => "must be at most 500 characters" })
  )
})
export type OrganisationWalletAdjustment = typeof OrganisationWalletAdjustment.Type

/** The organisation's wallet after a move, and the ledger transaction of the move. */
export const OrganisationWalletAdjusted = Schema.Struct({
  balance: Schema.Number.annotations({ description: "Organisation wallet balance afterwards, in hours" }),
  transaction_id: TransactionId
})
export type OrganisationWalletAdjusted = typeof OrganisationWalletAdjusted.Type
