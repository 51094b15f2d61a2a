import { Schema } from "effect"

/**
 * A partner shared a listing by webhook (`listing.created|updated`, decisions D13a "Ingest"); `record_id` is the
 * stored `federated_records` row, `created` false for an update of one already stored.
 */
export class FederatedListingReceived extends Schema.TaggedClass<FederatedListingReceived>()(
  "FederatedListingReceived",
  {
    partner_id: Schema.Number,
    record_id: Schema.Number,
    remote_id: Schema.String,
    remote_member_id: Schema.NullOr(Schema.String),
    title: Schema.NullOr(Schema.String),
    created: Schema.Boolean
  }
) {}

/** A partner shared a review its members wrote (`review.created`), stored as a federated record. */
export class FederatedReviewReceived extends Schema.TaggedClass<FederatedReviewReceived>()(
  "FederatedReviewReceived",
  {
    partner_id: Schema.Number,
    record_id: Schema.Number,
    remote_id: Schema.String,
    remote_member_id: Schema.NullOr(Schema.String),
    rating: Schema.NullOr(Schema.Number),
    created: Schema.Boolean
  }
) {}

/**
 * A partner community's member wrote to one of our members (`POST /api/v1/federation/messages`). Carries what the
 * recipient's notification shows: the sender's and partner's names and the message.
 */
export class FederatedMessageReceived extends Schema.TaggedClass<FederatedMessageReceived>()(
  "FederatedMessageReceived",
  {
    message_id: Schema.Number,
    partner_id: Schema.Number,
    partner_name: Schema.String,
    recipient_id: Schema.Number,
    sender_name: Schema.String,
    sender_external_id: Schema.String,
    subject: Schema.NullOr(Schema.String),
    body: Schema.String
  }
) {}
