import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { EventTitle } from "./Event.js"

export const EventSeriesId = RecordId.pipe(Schema.brand("EventSeriesId"))
export type EventSeriesId = typeof EventSeriesId.Type

/** A named series of events without a recurrence rule (spec: `POST /v2/events/series`). */
export class EventSeries extends Schema.Class<EventSeries>("EventSeries")({
  id: EventSeriesId,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  user_id: UserId.annotations({ description: "Who created it; they (or a community admin) link events to it" }),
  created_at: Schema.DateTimeUtc
}) {}

export const CreateEventSeries = Schema.Struct({
  title: EventTitle,
  description: Schema.optionalWith(Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(20_000))), { exact: true })
})
export type CreateEventSeries = typeof CreateEventSeries.Type

export const LinkEventSeries = Schema.Struct({
  series_id: Schema.NullOr(RecordId).annotations({
    description: "A series of this community that the caller created (any, for a community admin); null unlinks"
  })
})
export type LinkEventSeries = typeof LinkEventSeries.Type
