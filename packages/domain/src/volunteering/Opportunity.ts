import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserSummary } from "../identity/UserSummary.js"
import { OrganisationId, OrganisationLocation } from "./Organisation.js"

export const OpportunityId = RecordId.pipe(Schema.brand("OpportunityId"))
export type OpportunityId = typeof OpportunityId.Type
export const ApplicationId = RecordId.pipe(Schema.brand("ApplicationId"))
export type ApplicationId = typeof ApplicationId.Type
export const HourLogId = RecordId.pipe(Schema.brand("HourLogId"))
export type HourLogId = typeof HourLogId.Type

/** `open` opportunities are the organisation's active ones (they count in `opportunity_count`). */
export const OpportunityStatus = Schema.Literal("open", "closed")
export type OpportunityStatus = typeof OpportunityStatus.Type

export const ReviewDecision = Schema.Literal("approved", "declined")
export type ReviewDecision = typeof ReviewDecision.Type
export const ApplicationStatus = Schema.Literal("pending", "approved", "declined")
export type ApplicationStatus = typeof ApplicationStatus.Type
export const HourLogStatus = ApplicationStatus
export type HourLogStatus = ApplicationStatus

/** The organisation as its opportunities, applications and hours name it. */
export const OrganisationRef = Schema.Struct({ id: OrganisationId, name: Schema.String })
export type OrganisationRef = typeof OrganisationRef.Type
export const OpportunityRef = Schema.Struct({ id: OpportunityId, title: Schema.String })
export type OpportunityRef = typeof OpportunityRef.Type

/** A volunteering opportunity of an organisation (decisions D7). */
export class Opportunity extends Schema.Class<Opportunity>("Opportunity")({
  id: OpportunityId,
  organisation_id: OrganisationId,
  organisation: OrganisationRef,
  title: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String),
  status: OpportunityStatus,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/** An application of a member to an opportunity; organisations see it in their dashboard. */
export class VolunteerApplication extends Schema.Class<VolunteerApplication>("VolunteerApplication")({
  id: ApplicationId,
  opportunity: OpportunityRef,
  organisation_id: OrganisationId,
  user: UserSummary,
  message: Schema.NullOr(Schema.String),
  status: ApplicationStatus,
  created_at: Schema.DateTimeUtc,
  reviewed_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/** What auto-pay did for approved hours: `none` (auto-pay off, or not approved), `paid`, `insufficient_balance`. */
export const HourPayment = Schema.Struct({
  status: Schema.Literal("none", "pending", "paid", "insufficient_balance"),
  transaction_id: Schema.NullOr(RecordId),
  amount: Schema.NullOr(Schema.Number).annotations({ description: "Hours paid; null unless paid" })
})
export type HourPayment = typeof HourPayment.Type

/** Hours a member logged for an organisation (decisions D7). */
export class HourLog extends Schema.Class<HourLog>("HourLog")({
  id: HourLogId,
  organisation: OrganisationRef,
  opportunity: Schema.NullOr(OpportunityRef),
  user: UserSummary,
  date: Schema.String.annotations({ description: "YYYY-MM-DD" }),
  hours: Schema.Number,
  description: Schema.String,
  status: HourLogStatus,
  created_at: Schema.DateTimeUtc,
  reviewed_at: Schema.NullOr(Schema.DateTimeUtc),
  payment: HourPayment
}) {}

export const OpportunityTitle = Schema.Trim.pipe(
  Schema.minLength(3, { message: () => "must be at least 3 characters" }),
  Schema.maxLength(255, { message: () => "must be at most 255 characters" })
)
export const OpportunityDescription = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(10_000)
)

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const CreateOpportunity = Schema.Struct({
  title: OpportunityTitle,
  description: OpportunityDescription,
  location: exact(Schema.NullOr(OrganisationLocation)),
  status: exact(OpportunityStatus)
})
export type CreateOpportunity = typeof CreateOpportunity.Type

export const UpdateOpportunity = Schema.Struct({
  title: exact(OpportunityTitle),
  description: exact(OpportunityDescription),
  location: exact(Schema.NullOr(OrganisationLocation)),
  status: exact(OpportunityStatus)
})
export type UpdateOpportunity = typeof UpdateOpportunity.Type

export const OpportunityIdPath = Schema.Struct({ id: PathId(OpportunityId) })
export const ApplicationIdPath = Schema.Struct({ id: PathId(ApplicationId) })
export const HourLogIdPath = Schema.Struct({ id: PathId(HourLogId) })

/** `?cursor=&per_page=` of volunteering cursor lists (newest first; default 20, at most 100). */
export const VolunteeringPageParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(100)).annotations({ description: "Default 20" })
})
export type VolunteeringPageParams = typeof VolunteeringPageParams.Type
export const VOLUNTEERING_PER_PAGE_DEFAULT = 20
