import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserId } from "../identity/User.js"
import { Credits } from "../ledger/Credits.js"
import { MESSAGE_BODY_MAX, MESSAGE_SUBJECT_MAX } from "../messaging/Message.js"
import { REVIEW_COMMENT_MAX, ReviewRating } from "../volunteering/Review.js"

/**
 * What partners write at `/api/v1/federation/*` (decisions D13, D13a): credits to our members, reviews of them and
 * messages to them, each from one of the partner's members, named by the partner (`name`, `external_id`).
 */

export const EXTERNAL_ID_MAX = 200
export const SENDER_NAME_MAX = 200
export const FEDERATED_DESCRIPTION_MAX = 500

const ExternalId = TrimmedText(1, EXTERNAL_ID_MAX)

/** The partner's member who acts: a name for our members to read and the partner's own id of them. */
export const FederationPerson = Schema.Struct({
  name: TrimmedText(1, SENDER_NAME_MAX).annotations({ description: "Shown to our members" }),
  external_id: ExternalId.annotations({ description: "The partner's id of its member" })
}).annotations({ identifier: "FederationPerson" })
export type FederationPerson = typeof FederationPerson.Type

export const FederatedTransactionId = RecordId.pipe(Schema.brand("FederatedTransactionId"))
export type FederatedTransactionId = typeof FederatedTransactionId.Type

/** `POST /api/v1/federation/transactions`. */
export const CreateFederatedTransaction = Schema.Struct({
  external_id: ExternalId.annotations({
    description: "The partner's id of this transfer: a repeat with the same body answers the first (200)"
  }),
  recipient_id: RecordId.annotations({ description: "An opted-in, active member of this community" }),
  amount: Credits,
  description: Schema.optionalWith(TrimmedText(0, FEDERATED_DESCRIPTION_MAX), { default: () => "" }),
  sender: FederationPerson
})
export type CreateFederatedTransaction = typeof CreateFederatedTransaction.Type

/** A credit a partner sent to one of our members, as that partner reads it. */
export class FederatedTransaction extends Schema.Class<FederatedTransaction>("FederatedTransaction")({
  id: FederatedTransactionId,
  external_id: Schema.String,
  recipient_id: UserId,
  amount: Schema.Number.annotations({ description: "Hours" }),
  description: Schema.String,
  status: Schema.Literal("completed", "cancelled").annotations({
    description: "`cancelled` once the partner's `transaction.cancelled` webhook refunded it"
  }),
  sender: FederationPerson,
  created_at: Schema.DateTimeUtc
}) {}

export const FederatedTransactionPath = Schema.Struct({ id: PathId(FederatedTransactionId) })

export const FEDERATION_WRITES_PER_PAGE_DEFAULT = 20
export const FEDERATION_WRITES_PER_PAGE_MAX = 100

/** `?cursor=&per_page=` of the newest-first lists of this file. */
export const FederatedWritesListParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(FEDERATION_WRITES_PER_PAGE_MAX)).annotations({
    description: `Default ${FEDERATION_WRITES_PER_PAGE_DEFAULT}, at most ${FEDERATION_WRITES_PER_PAGE_MAX}`
  })
})
export type FederatedWritesListParams = typeof FederatedWritesListParams.Type

/** `POST /api/v1/federation/reviews`. */
export const CreateFederatedReview = Schema.Struct({
  member_id: RecordId.annotations({ description: "An opted-in, active member of this community" }),
  rating: ReviewRating,
  comment: Schema.optionalWith(TrimmedText(0, REVIEW_COMMENT_MAX), { default: () => "" }),
  reviewer: FederationPerson
})
export type CreateFederatedReview = typeof CreateFederatedReview.Type

/** `POST /api/v1/federation/messages`. */
export const CreateFederatedMessage = Schema.Struct({
  recipient_id: RecordId.annotations({ description: "An opted-in, active member of this community" }),
  subject: Schema.optional(Schema.NullOr(TrimmedText(0, MESSAGE_SUBJECT_MAX))).annotations({
    description: `At most ${MESSAGE_SUBJECT_MAX} characters; blank or null for none`
  }),
  body: TrimmedText(1, MESSAGE_BODY_MAX).annotations({ description: `1 to ${MESSAGE_BODY_MAX} characters` }),
  sender: FederationPerson
})
export type CreateFederatedMessage = typeof CreateFederatedMessage.Type

export const FederatedMessageId = RecordId.pipe(Schema.brand("FederatedMessageId"))
export type FederatedMessageId = typeof FederatedMessageId.Type

/** A message a partner's member sent one of ours, as the partner reads it back. */
export class FederatedMessageSent extends Schema.Class<FederatedMessageSent>("FederatedMessageSent")({
  id: FederatedMessageId,
  recipient_id: UserId,
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  sender: FederationPerson,
  created_at: Schema.DateTimeUtc
}) {}

/** A message from a partner community's member, as our member reads it. */
export class FederatedMessage extends Schema.Class<FederatedMessage>("FederatedMessage")({
  id: FederatedMessageId,
  partner: Schema.Struct({ id: RecordId, name: Schema.String }),
  sender: FederationPerson,
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  read_at: Schema.NullOr(Schema.DateTimeUtc),
  created_at: Schema.DateTimeUtc
}) {}

export const FederatedMessagePath = Schema.Struct({ id: PathId(FederatedMessageId) })
