import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { RecordId } from "../http/Ids.js"
import { JsonObject } from "./WebhookReceive.js"

/** What a partner shared by webhook (decisions D13a "Ingest"): `federated_records.kind`. */
export const FederatedRecordKind = Schema.Literal("listing", "event", "group", "review")
export type FederatedRecordKind = typeof FederatedRecordKind.Type

/** The partner community a record comes from. */
export const FederatedPartnerRef = Schema.Struct({
  id: RecordId,
  name: Schema.String
})

const NullableText = Schema.NullOr(Schema.String)

/** What every browsed record carries: where it comes from, its ids, and the partner's data as received. */
const recordFields = {
  id: RecordId.annotations({ description: "This service's id of the stored record (the list's cursor)" }),
  partner: FederatedPartnerRef,
  remote_id: Schema.String.annotations({ description: "The partner's id of the record (`data.id`)" }),
  remote_member_id: NullableText.annotations({
    description: "The partner's id of the member it belongs to, when the data names one"
  })
}

const receivedFields = {
  data: JsonObject.annotations({ description: "The record as the partner last sent it" }),
  received_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}

/** A partner's offer or request. */
export class FederatedListing extends Schema.Class<FederatedListing>("FederatedListing")({
  ...recordFields,
  type: NullableText.annotations({ description: "`offer` or `request`, as the partner says" }),
  title: NullableText,
  description: NullableText,
  ...receivedFields
}) {}

/** A partner's community event. */
export class FederatedEvent extends Schema.Class<FederatedEvent>("FederatedEvent")({
  ...recordFields,
  title: NullableText,
  description: NullableText,
  start_time: Schema.NullOr(Schema.DateTimeUtc),
  end_time: Schema.NullOr(Schema.DateTimeUtc),
  location: NullableText,
  is_online: Schema.NullOr(Schema.Boolean),
  status: NullableText.annotations({ description: "As the partner says (`active`, `cancelled`, ...)" }),
  ...receivedFields
}) {}

/** A partner's group. */
export class FederatedGroup extends Schema.Class<FederatedGroup>("FederatedGroup")({
  ...recordFields,
  name: NullableText,
  description: NullableText,
  location: NullableText,
  ...receivedFields
}) {}

export const BROWSE_PER_PAGE_DEFAULT = 20
export const BROWSE_PER_PAGE_MAX = 100

/** `GET /api/v2/federation/{events,listings,groups}`: newest first; the cursor is the last record id seen. */
export const ListFederatedParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(BROWSE_PER_PAGE_MAX)).annotations({
    description: `Default ${BROWSE_PER_PAGE_DEFAULT}`
  })
})
export type ListFederatedParams = typeof ListFederatedParams.Type
