import { Schema } from "effect"
import { CursorParam, OffsetPageParams, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"
import { hasTwoDecimals } from "../ledger/Credits.js"
import { AttributeValues, AttributeValuesInput } from "./Attribute.js"
import { CategoryId, CategorySummary } from "./Category.js"

export const ListingId = RecordId.pipe(Schema.brand("ListingId"))
export type ListingId = typeof ListingId.Type

export const ListingType = Schema.Literal("offer", "request")
export type ListingType = typeof ListingType.Type

/** `pending` listings wait for a moderator (tenant setting `listing_moderation`); only `active` ones are public. */
export const ListingStatus = Schema.Literal("pending", "active")
export type ListingStatus = typeof ListingStatus.Type

export const ListingTitle = Schema.Trim.pipe(Schema.minLength(3), Schema.maxLength(255))
export const ListingDescription = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(10_000))
export const ListingLocation = Schema.Trim.pipe(Schema.maxLength(255))

/** Estimated hours: positive, at most 1,000, at most 2 decimals (decisions D2). */
export const HoursEstimate = Schema.Number.pipe(
  Schema.greaterThan(0),
  Schema.lessThanOrEqualTo(1000),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals" })
)

/** An offer or request with its owner and category. */
export class Listing extends Schema.Class<Listing>("Listing")({
  id: ListingId,
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  status: ListingStatus,
  hours_estimate: Schema.NullOr(Schema.Number),
  location: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(CategoryId),
  category: Schema.NullOr(CategorySummary),
  attributes: AttributeValues,
  user_id: UserId,
  user: UserSummary.annotations({ description: "The owner" }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const CreateListing = Schema.Struct({
  type: ListingType,
  title: ListingTitle,
  description: ListingDescription,
  category_id: exact(Schema.NullOr(RecordId)).annotations({ description: "A `listing` category of the community" }),
  hours_estimate: exact(Schema.NullOr(HoursEstimate)),
  location: exact(Schema.NullOr(ListingLocation)),
  attributes: exact(AttributeValuesInput)
})
export type CreateListing = typeof CreateListing.Type

/** Any subset of the fields; `null` clears an optional one; `attributes` replaces all values. */
export const UpdateListing = Schema.Struct({
  type: exact(ListingType),
  title: exact(ListingTitle),
  description: exact(ListingDescription),
  category_id: exact(Schema.NullOr(RecordId)),
  hours_estimate: exact(Schema.NullOr(HoursEstimate)),
  location: exact(Schema.NullOr(ListingLocation)),
  attributes: exact(AttributeValuesInput)
})
export type UpdateListing = typeof UpdateListing.Type

export const ListingIdPath = Schema.Struct({ id: PathId(ListingId) })

export const ListingDeleted = Schema.Struct({ id: ListingId, deleted: Schema.Literal(true) })
export type ListingDeleted = typeof ListingDeleted.Type

const IdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId))
const SearchParam = Schema.Trim.pipe(Schema.maxLength(200)).annotations({
  description: "Part of the title or description (case-insensitive; % and _ match themselves)"
})

/** Spec "Limits": directory `per_page` default 20, max 50. */
export const LISTINGS_PER_PAGE_MAX = 50

const RankWeight = Schema.Number.pipe(Schema.finite(), Schema.between(0, 10))

/**
 * Where a page in a ranked order (the community's `listings` algorithm with a search term, decisions D17) ended:
 * the order itself (anchor time in epoch ms, weights) and the last listing's score and id. The next page continues
 * that order even if an admin changes the algorithm meanwhile.
 */
export const RankCursor = Schema.Struct({
  at: Schema.Int.pipe(Schema.between(0, 8_640_000_000_000_000)).annotations({ description: "Epoch ms" }),
  recency: RankWeight,
  relevance: RankWeight,
  score: Schema.Number.pipe(Schema.finite()),
  id: RecordId
})
export type RankCursor = typeof RankCursor.Type

/** A listing id (newest-first pages), or a {@link RankCursor}. */
export const ListingsCursor = Schema.Union(RecordId, RankCursor)
export type ListingsCursor = typeof ListingsCursor.Type

/** `GET /api/v2/listings`: active listings, in the order the community's `listings` algorithm gives. */
export const ListListingsParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(ListingsCursor)),
  per_page: Schema.optional(PerPageParam(LISTINGS_PER_PAGE_MAX)).annotations({ description: "Default 20" }),
  type: Schema.optional(ListingType).annotations({ description: "Only offers or only requests" }),
  category_id: Schema.optional(IdParam).annotations({ description: "Only listings of this category" }),
  user_id: Schema.optional(IdParam).annotations({ description: "Only this member's listings" }),
  search: Schema.optional(SearchParam)
})
export type ListListingsParams = typeof ListListingsParams.Type

export const AdminListListingsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(ListingStatus).annotations({ description: "Only listings with this status" }),
  type: Schema.optional(ListingType).annotations({ description: "Only offers or only requests" }),
  user_id: Schema.optional(IdParam).annotations({ description: "Only this member's listings" }),
  category_id: Schema.optional(IdParam).annotations({ description: "Only listings of this category" }),
  search: Schema.optional(SearchParam)
})
export type AdminListListingsParams = typeof AdminListListingsParams.Type

export const ModerationQueueParams = OffsetPageParams
export type ModerationQueueParams = typeof ModerationQueueParams.Type

/** Listings of the community per status (deleted ones are not counted). */
export const ModerationStats = Schema.Struct({
  pending: Schema.Int,
  active: Schema.Int,
  total: Schema.Int,
  oldest_pending_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "When the listing that has waited longest was created; null when none waits"
  })
})
export type ModerationStats = typeof ModerationStats.Type
