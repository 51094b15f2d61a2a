import { Schema } from "effect"

export class OrganisationRegistered extends Schema.TaggedClass<OrganisationRegistered>()("OrganisationRegistered", {
  organisation_id: Schema.Number,
  user_id: Schema.Number,
  name: Schema.String,
  status: Schema.String,
  created_by: Schema.Number
}) {}

export class OrganisationUpdated extends Schema.TaggedClass<OrganisationUpdated>()("OrganisationUpdated", {
  organisation_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  updated_by: Schema.Number
}) {}

export class OrganisationStatusChanged
  extends Schema.TaggedClass<OrganisationStatusChanged>()("OrganisationStatusChanged", {
    organisation_id: Schema.Number,
    from: Schema.String,
    to: Schema.String,
    changed_by: Schema.Number
  })
{}

export class OrganisationAutoPayChanged
  extends Schema.TaggedClass<OrganisationAutoPayChanged>()("OrganisationAutoPayChanged", {
    organisation_id: Schema.Number,
    auto_pay_enabled: Schema.Boolean,
    changed_by: Schema.Number
  })
{}

export class VolOpportunityCreated extends Schema.TaggedClass<VolOpportunityCreated>()("VolOpportunityCreated", {
  opportunity_id: Schema.Number,
  organisation_id: Schema.Number,
  title: Schema.String,
  status: Schema.String,
  created_by: Schema.Number,
  /** For notifications, which may not read volunteering's tables; absent in events stored before it was added. */
  organisation_name: Schema.optionalWith(Schema.String, { exact: true })
}) {}

export class VolOpportunityUpdated extends Schema.TaggedClass<VolOpportunityUpdated>()("VolOpportunityUpdated", {
  opportunity_id: Schema.Number,
  organisation_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  title: Schema.String,
  status: Schema.String,
  updated_by: Schema.Number
}) {}

export class VolApplicationCreated extends Schema.TaggedClass<VolApplicationCreated>()("VolApplicationCreated", {
  application_id: Schema.Number,
  opportunity_id: Schema.Number,
  organisation_id: Schema.Number,
  user_id: Schema.Number
}) {}

export class VolApplicationReviewed extends Schema.TaggedClass<VolApplicationReviewed>()("VolApplicationReviewed", {
  application_id: Schema.Number,
  opportunity_id: Schema.Number,
  organisation_id: Schema.Number,
  user_id: Schema.Number,
  status: Schema.String,
  reviewed_by: Schema.Number,
  /** For notifications (absent in events stored before they were added), as are the names below. */
  opportunity_title: Schema.optionalWith(Schema.String, { exact: true }),
  organisation_name: Schema.optionalWith(Schema.String, { exact: true })
}) {}

/** `date` is the `YYYY-MM-DD` the hours were worked. */
export class VolHoursLogged extends Schema.TaggedClass<VolHoursLogged>()("VolHoursLogged", {
  hour_log_id: Schema.Number,
  organisation_id: Schema.Number,
  opportunity_id: Schema.NullOr(Schema.Number),
  user_id: Schema.Number,
  date: Schema.String,
  hours: Schema.Number
}) {}

export class VolHoursReviewed extends Schema.TaggedClass<VolHoursReviewed>()("VolHoursReviewed", {
  hour_log_id: Schema.Number,
  organisation_id: Schema.Number,
  user_id: Schema.Number,
  hours: Schema.Number,
  status: Schema.String,
  payment_status: Schema.String,
  reviewed_by: Schema.Number,
  organisation_name: Schema.optionalWith(Schema.String, { exact: true })
}) {}

export class ReviewCreated extends Schema.TaggedClass<ReviewCreated>()("ReviewCreated", {
  review_id: Schema.Number,
  /** Null for a partner community's member (a federated review: see `reviewer_name`). */
  reviewer_id: Schema.NullOr(Schema.Number),
  /** A federated review's reviewer, as the partner named them ("name (partner)"). */
  reviewer_name: Schema.optionalWith(Schema.String, { exact: true }),
  target_type: Schema.String,
  target_id: Schema.Number,
  rating: Schema.Number,
  /** The reviewed member's "first last", or the organisation's name. */
  target_name: Schema.optionalWith(Schema.String, { exact: true }),
  /** Who is told of the review: the reviewed member, or the organisation's owners; never the reviewer. */
  notify_user_ids: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true })
}) {}
