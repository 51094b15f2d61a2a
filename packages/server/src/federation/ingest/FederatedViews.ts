import { FederatedEvent, FederatedGroup, FederatedListing, type FederatedRecordKind } from "@timebank/domain"
import { DateTime } from "effect"
import type { BrowsedRecordRow } from "./FederatedRecordsRepo.js"
import { recordFields } from "./IngestShapes.js"

const utc = (date: Date | null) => (date === null ? null : DateTime.unsafeMake(date))

const common = (row: BrowsedRecordRow) => ({
  id: row.id,
  partner: { id: row.partner_id, name: row.partner_name },
  remote_id: row.remote_id,
  remote_member_id: row.remote_member_id
})

const received = (row: BrowsedRecordRow) => ({
  data: row.data,
  received_at: DateTime.unsafeMake(row.received_at),
  updated_at: DateTime.unsafeMake(row.updated_at)
})

const fieldsOf = (kind: FederatedRecordKind, row: BrowsedRecordRow) => recordFields(kind, row.data)

/** A partner's listing as members browse it: the display fields read from what the partner sent. */
export const listingView = (row: BrowsedRecordRow) => {
  const f = fieldsOf("listing", row)
  return new FederatedListing({
    ...common(row),
    type: f.text("type"),
    title: f.text("title"),
    description: f.text("description"),
    ...received(row)
  })
}

export const eventView = (row: BrowsedRecordRow) => {
  const f = fieldsOf("event", row)
  return new FederatedEvent({
    ...common(row),
    title: f.text("title"),
    description: f.text("description"),
    start_time: utc(f.time("start_time")),
    end_time: utc(f.time("end_time")),
    location: f.text("location"),
    is_online: f.flag("is_online"),
    status: f.text("status"),
    ...received(row)
  })
}

export const groupView = (row: BrowsedRecordRow) => {
  const f = fieldsOf("group", row)
  return new FederatedGroup({
    ...common(row),
    name: f.text("name"),
    description: f.text("description"),
    location: f.text("location"),
    ...received(row)
  })
}
