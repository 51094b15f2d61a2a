import type { FederatedRecordKind } from "@timebank/domain"

/**
 * What this service reads of the `data` partners send (decisions D13a "Ingest"). A native partner is another time
 * bank: it sends our own outbound shapes (`{id, user_id, title, ...}` for a listing, `{id, owner_id, name, ...}` for a
 * group). The reading is tolerant: only an id is required; the record's fields may also sit in a nested object named
 * after its kind (`data.listing.title`); everything is kept as sent, and the browse views pick what they show.
 */

type Json = Readonly<Record<string, unknown>>

/** The webhook events stored as a partner's records, and the kind each becomes. */
export const INGESTED: Readonly<Record<string, FederatedRecordKind>> = {
  "listing.created": "listing",
  "listing.updated": "listing",
  "event.created": "event",
  "event.updated": "event",
  "group.created": "group",
  "group.updated": "group",
  "review.created": "review"
}

export const REMOTE_ID_MAX = 200

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** A partner's id: a non-empty string of at most {@link REMOTE_ID_MAX} characters, or an integer. */
export const remoteIdOf = (value: unknown): string | null => {
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : null
  if (typeof value !== "string") return null
  const id = value.trim()
  return id.length > 0 && id.length <= REMOTE_ID_MAX ? id : null
}

/** The record's own fields: `data`, with a nested object named after the kind filling what `data` lacks. */
const fieldsOf = (kind: FederatedRecordKind, data: Json): Json => {
  const nested = data[kind]
  return isObject(nested) ? { ...nested, ...data } : data
}

/** The first of `keys` that holds a remote id (or an object with one as `id`). */
const firstId = (fields: Json, keys: ReadonlyArray<string>): string | null => {
  for (const key of keys) {
    const value = fields[key]
    const id = remoteIdOf(isObject(value) ? value["id"] : value)
    if (id !== null) return id
  }
  return null
}

/** Who a record belongs to at the partner: a review's reviewer, any other record's author or owner. */
const MEMBER_KEYS: Readonly<Record<FederatedRecordKind, ReadonlyArray<string>>> = {
  listing: ["user_id", "owner_id", "member_id", "user", "owner"],
  event: ["user_id", "owner_id", "organiser_id", "member_id", "user", "owner"],
  group: ["owner_id", "user_id", "member_id", "owner", "user"],
  review: ["reviewer_id", "user_id", "member_id", "reviewer", "user"]
}

export interface IngestedRecord {
  readonly remoteId: string
  readonly remoteMemberId: string | null
}

/** The ids of a record (`id`, else `<kind>_id`), or null when it has none this service can key it by. */
export const recordIdsOf = (kind: FederatedRecordKind, data: Json): IngestedRecord | null => {
  const fields = fieldsOf(kind, data)
  const remoteId = remoteIdOf(fields["id"]) ?? remoteIdOf(fields[`${kind}_id`])
  return remoteId === null ? null : { remoteId, remoteMemberId: firstId(fields, MEMBER_KEYS[kind]) }
}

/**
 * Whether a listing or group the partner sends has stopped being shared: a listing no longer `active` (our outbound
 * `listing.updated` says so by its status), a group no longer public or active. The partner's record is dropped.
 */
export const withdrawn = (kind: FederatedRecordKind, data: Json): boolean => {
  const fields = fieldsOf(kind, data)
  const differs = (key: string, shared: string) => typeof fields[key] === "string" && fields[key] !== shared
  switch (kind) {
    case "listing":
      return differs("status", "active")
    case "group":
      return differs("status", "active") || differs("visibility", "public")
    default:
      return false
  }
}

/** The partner member named by `member.opted_out` (`member_id`, or `user_id`/`id`). */
export const optedOutMemberOf = (data: Json): string | null =>
  remoteIdOf(data["member_id"]) ?? remoteIdOf(data["user_id"]) ?? remoteIdOf(data["id"])

/** The group named by `group.deleted` (`id`, else `group_id`). */
export const deletedGroupOf = (data: Json): string | null => remoteIdOf(data["id"]) ?? remoteIdOf(data["group_id"])

/** The partner's transaction named by `transaction.cancelled`. */
export const cancelledTransactionOf = (data: Json): string | null => remoteIdOf(data["external_id"])

/** Display fields of a stored record, read from its data. */
export interface RecordFields {
  readonly text: (key: string) => string | null
  readonly time: (key: string) => Date | null
  readonly flag: (key: string) => boolean | null
  readonly number: (key: string) => number | null
}

export const recordFields = (kind: FederatedRecordKind, data: Json): RecordFields => {
  const fields = fieldsOf(kind, data)
  return {
    text: (key) => {
      const value = fields[key]
      return typeof value === "string" ? value : null
    },
    time: (key) => {
      const value = fields[key]
      if (typeof value !== "string") return null
      const date = new Date(value)
      return Number.isNaN(date.getTime()) ? null : date
    },
    flag: (key) => {
      const value = fields[key]
      return typeof value === "boolean" ? value : null
    },
    number: (key) => {
      const value = fields[key]
      return typeof value === "number" && Number.isFinite(value) ? value : null
    }
  }
}
