import { Schema } from "effect"
import { ClampedPerPageParam, CursorParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { Email } from "../identity/User.js"

export const OrganisationId = RecordId.pipe(Schema.brand("OrganisationId"))
export type OrganisationId = typeof OrganisationId.Type

/** `approved` is a legacy value treated like `active` for visibility (spec "Organisation status"). */
export const OrganisationStatus = Schema.Literal("pending", "active", "approved", "suspended")
export type OrganisationStatus = typeof OrganisationStatus.Type

export const VISIBLE_ORGANISATION_STATUSES: ReadonlyArray<OrganisationStatus> = ["active", "approved"]
export const isVisibleStatus = (status: OrganisationStatus) => VISIBLE_ORGANISATION_STATUSES.includes(status)

export const MemberRole = Schema.Literal("owner", "admin", "member")
export type MemberRole = typeof MemberRole.Type
export const MemberStatus = Schema.Literal("active", "pending", "invited", "removed")
export type MemberStatus = typeof MemberStatus.Type

/** Spec "Limits": name 3 to 200 chars, description at least 20. */
export const OrganisationName = Schema.Trim.pipe(
  Schema.minLength(3, { message: () => "must be at least 3 characters" }),
  Schema.maxLength(200, { message: () => "must be at most 200 characters" })
)
export const OrganisationDescription = Schema.Trim.pipe(
  Schema.minLength(20, { message: () => "must be at least 20 characters" }),
  Schema.maxLength(10_000, { message: () => "must be at most 10000 characters" })
)
export const HttpUrl = Schema.Trim.pipe(
  Schema.maxLength(500),
  Schema.filter((value) => {
    try {
      const url = new URL(value)
      return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
    } catch {
      return false
    }
  }, { message: () => "must be an http(s) URL", jsonSchema: { format: "uri" } })
)
export const OrganisationLocation = Schema.Trim.pipe(Schema.maxLength(255))

/** The owner as the directory shows them (spec: first name, last name, avatar). */
export const OrganisationOwner = Schema.Struct({
  id: RecordId,
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String)
})
export type OrganisationOwner = typeof OrganisationOwner.Type

const directoryFields = {
  id: OrganisationId,
  name: Schema.String,
  description: Schema.String,
  logo_url: Schema.NullOr(Schema.String),
  website: Schema.NullOr(Schema.String),
  contact_email: Schema.String,
  location: Schema.NullOr(Schema.String),
  opportunity_count: Schema.Int.annotations({ description: "Open opportunities" }),
  volunteer_count: Schema.Int.annotations({ description: "Distinct members with an approved application" }),
  total_hours: Schema.Number.annotations({ description: "Sum of approved hour logs" }),
  average_rating: Schema.NullOr(Schema.Number).annotations({
    description: "Mean review rating to 1 decimal; null without reviews"
  }),
  created_at: Schema.DateTimeUtc,
  owner: OrganisationOwner
}

/** An item of the public directory (spec "Organisation"): never `balance`, `auto_pay_enabled`, `tenant_id`. */
export class DirectoryOrganisation extends Schema.Class<DirectoryOrganisation>("DirectoryOrganisation")(
  directoryFields
) {}

/** The public detail view: the directory fields and `review_count`. */
export class OrganisationDetail extends Schema.Class<OrganisationDetail>("OrganisationDetail")({
  ...directoryFields,
  review_count: Schema.Int
}) {}

/** An organisation the caller runs, with its status and the caller's role (`GET /my-organisations`). */
export class MyOrganisation extends Schema.Class<MyOrganisation>("MyOrganisation")({
  ...directoryFields,
  review_count: Schema.Int,
  slug: Schema.String,
  status: OrganisationStatus,
  role: MemberRole
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** `POST /api/v2/volunteering/organisations`. */
export const RegisterOrganisation = Schema.Struct({
  name: OrganisationName,
  description: OrganisationDescription,
  contact_email: Email,
  website: exact(Schema.NullOr(HttpUrl)),
  logo_url: exact(Schema.NullOr(HttpUrl)),
  location: exact(Schema.NullOr(OrganisationLocation))
})
export type RegisterOrganisation = typeof RegisterOrganisation.Type

/** Profile fields; any subset; `null` clears an optional one. */
export const UpdateOrganisation = Schema.Struct({
  name: exact(OrganisationName),
  description: exact(OrganisationDescription),
  contact_email: exact(Email),
  website: exact(Schema.NullOr(HttpUrl)),
  logo_url: exact(Schema.NullOr(HttpUrl)),
  location: exact(Schema.NullOr(OrganisationLocation))
})
export type UpdateOrganisation = typeof UpdateOrganisation.Type

export const OrganisationIdPath = Schema.Struct({ id: PathId(OrganisationId) })

/** Spec "Limits": directory `per_page` default 20, max 50. */
export const DIRECTORY_PER_PAGE_DEFAULT = 20
export const DIRECTORY_PER_PAGE_MAX = 50

export const SearchParam = Schema.Trim.pipe(Schema.maxLength(200)).annotations({
  description: "Part of the name or description (case-insensitive; % and _ match themselves)"
})

/** `GET /api/v2/volunteering/organisations`. */
export const DirectoryParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(ClampedPerPageParam(DIRECTORY_PER_PAGE_MAX)).annotations({ description: "Default 20" }),
  search: Schema.optional(SearchParam)
})
export type DirectoryParams = typeof DirectoryParams.Type
