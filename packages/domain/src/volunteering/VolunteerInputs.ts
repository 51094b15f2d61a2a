import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"
import { CalendarDate } from "../http/CalendarDate.js"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { RecordId } from "../http/Ids.js"
import { hasTwoDecimals } from "../ledger/Credits.js"
import { OpportunityId, ReviewDecision } from "./Opportunity.js"
import { OrganisationId, SearchParam } from "./Organisation.js"

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** An hour log already approved (or declined) was asked for the opposite decision: a review of hours is final. */
export class AlreadyReviewed extends ApiError<AlreadyReviewed>()("AlreadyReviewed", "ALREADY_REVIEWED", 409) {}

const IdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId))

/** `GET /api/v2/volunteering/opportunities`: open opportunities of active organisations, newest first. */
export const OpportunityListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(100)).annotations({ description: "Default 20" }),
  organisation_id: Schema.optional(IdParam).annotations({ description: "Only this organisation's opportunities" }),
  search: Schema.optional(SearchParam).annotations({
    description: "Part of the title or description (case-insensitive; % and _ match themselves)"
  })
})
export type OpportunityListParams = typeof OpportunityListParams.Type

const ApplicationFields = Schema.Struct({
  message: exact(
    Schema.NullOr(
      Schema.Trim.pipe(Schema.maxLength(2000, { message: () => "must be at most 2000 characters" }))
    )
  ).annotations({ description: "A note to the organisation, up to 2000 characters" })
})

/** `POST /api/v2/volunteering/opportunities/{id}/apply`; a request without a body applies without a message. */
export const ApplyToOpportunity = Schema.transform(
  Schema.Union(Schema.Null, ApplicationFields),
  Schema.typeSchema(ApplicationFields),
  { strict: true, decode: (body) => body ?? {}, encode: (body) => body }
)
export type ApplyToOpportunity = typeof ApplyToOpportunity.Type

/** `PUT /api/v2/volunteering/applications/{id}` and `PUT /api/v2/volunteering/hours/{id}`. */
export const ReviewRequest = Schema.Struct({ status: ReviewDecision })
export type ReviewRequest = typeof ReviewRequest.Type

export const EARLIEST_HOUR_LOG_DATE = "2000-01-01"
export const MIN_LOGGED_HOURS = 0.25
export const MAX_LOGGED_HOURS = 24

/** Today's date in UTC as `YYYY-MM-DD`. */
export const utcToday = (now: Date) => now.toISOString().slice(0, 10)

/** The day the hours were worked: a calendar date from 2000-01-01 up to today (UTC). */
export const HourLogDate = CalendarDate.pipe(
  Schema.filter((value) => value >= EARLIEST_HOUR_LOG_DATE, {
    message: () => `must not be before ${EARLIEST_HOUR_LOG_DATE}`
  }),
  // Read at decode time on purpose: "today" moves, and clients decoding the contract get the same rule.
  Schema.filter((value) => value <= utcToday(new Date()), { message: () => "must not be in the future (UTC)" })
).annotations({ description: "YYYY-MM-DD, from 2000-01-01 up to today (UTC)" })

export const LoggedHours = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.between(MIN_LOGGED_HOURS, MAX_LOGGED_HOURS, {
    message: () => `must be between ${MIN_LOGGED_HOURS} and ${MAX_LOGGED_HOURS}`
  }),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals" })
).annotations({ description: "0.25 to 24 hours, at most 2 decimals" })

/** `POST /api/v2/volunteering/hours`. */
export const LogHours = Schema.Struct({
  organisation_id: OrganisationId.annotations({
    description: "An active organisation that approved one of the caller's applications"
  }),
  opportunity_id: exact(Schema.NullOr(OpportunityId)).annotations({
    description: "An opportunity of that organisation (open or closed)"
  }),
  date: HourLogDate,
  hours: LoggedHours,
  description: Schema.Trim.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(2000, { message: () => "must be at most 2000 characters" })
  )
})
export type LogHours = typeof LogHours.Type
