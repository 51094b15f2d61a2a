import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"

export const MatchId = RecordId.pipe(Schema.brand("MatchId"))
export type MatchId = typeof MatchId.Type

/** What a match suggests to a member: another member's listing, or an open volunteering opportunity. */
export const MatchTargetType = Schema.Literal("listing", "opportunity")
export type MatchTargetType = typeof MatchTargetType.Type

/**
 * `visible`: shown to the member (no approval needed); `pending`: waits for an admin (approval required);
 * `approved`: shown after an admin approved it; `rejected`: never shown, never suggested again.
 */
export const MatchStatus = Schema.Literal("visible", "pending", "approved", "rejected")
export type MatchStatus = typeof MatchStatus.Type

/** The statuses of the approvals queue: matches made while approval was required. */
export const ApprovalStatus = Schema.Literal("pending", "approved", "rejected")
export type ApprovalStatus = typeof ApprovalStatus.Type

export const Weekday = Schema.Literal("mon", "tue", "wed", "thu", "fri", "sat", "sun")
export type Weekday = typeof Weekday.Type
export const DaySlot = Schema.Literal("morning", "afternoon", "evening")
export type DaySlot = typeof DaySlot.Type

const unique = <A>(items: ReadonlyArray<A>) => new Set(items).size === items.length || "must not repeat an item"

const Slots = Schema.Array(DaySlot).pipe(Schema.minItems(1), Schema.maxItems(3), Schema.filter(unique))

/** When the member can help: per weekday, the parts of the day (`{"sat": ["morning"]}`); `{}` = not said. */
export const Availability = Schema.Struct({
  mon: Schema.optionalWith(Slots, { exact: true }),
  tue: Schema.optionalWith(Slots, { exact: true }),
  wed: Schema.optionalWith(Slots, { exact: true }),
  thu: Schema.optionalWith(Slots, { exact: true }),
  fri: Schema.optionalWith(Slots, { exact: true }),
  sat: Schema.optionalWith(Slots, { exact: true }),
  sun: Schema.optionalWith(Slots, { exact: true })
}).annotations({
  parseOptions: { onExcessProperty: "error" },
  description: "Weekdays (`mon`..`sun`) with the parts of the day (`morning`, `afternoon`, `evening`); {} = not said"
})
export type Availability = typeof Availability.Type

export const MAX_SKILLS = 30
export const MAX_INTEREST_CATEGORIES = 50

/** A skill as the member writes it ("gardening", "dog walking"); compared word by word with what others post. */
export const Skill = TrimmedText(1, 50)

/** A member's matching profile (`GET /api/v2/matches/profile`). */
export const MatchProfile = Schema.Struct({
  skills: Schema.Array(Schema.String),
  availability: Availability,
  categories: Schema.Array(RecordId).annotations({ description: "Listing categories the member is interested in" }),
  max_distance_km: Schema.NullOr(Schema.Number).annotations({
    description: "How far the member would go; null = the default (25 km)"
  }),
  location: Schema.NullOr(Schema.String).annotations({
    description: "The member's profile location (set with PUT /api/v2/users/me), geocoded for the distance"
  }),
  updated_at: Schema.NullOr(Schema.DateTimeUtc).annotations({ description: "Null until the member saved one" })
})
export type MatchProfile = typeof MatchProfile.Type

/** `PUT /api/v2/matches/profile`: partial; each given key replaces its value. */
export const UpdateMatchProfile = Schema.Struct({
  skills: Schema.optionalWith(
    Schema.Array(Skill).pipe(Schema.maxItems(MAX_SKILLS)).annotations({
      description: `At most ${MAX_SKILLS} skills of 1 to 50 characters; repeats (ignoring case) are dropped`
    }),
    { exact: true }
  ),
  availability: Schema.optionalWith(Availability, { exact: true }),
  categories: Schema.optionalWith(
    Schema.Array(RecordId).pipe(Schema.maxItems(MAX_INTEREST_CATEGORIES), Schema.filter(unique)).annotations({
      description: "Ids of this community's listing categories"
    }),
    { exact: true }
  ),
  max_distance_km: Schema.optionalWith(
    Schema.NullOr(Schema.Number.pipe(Schema.finite(), Schema.between(1, 1000))),
    { exact: true }
  )
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type UpdateMatchProfile = typeof UpdateMatchProfile.Type

/** What a match points at, as the member sees it. */
export const MatchTarget = Schema.Struct({
  title: Schema.String,
  location: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(RecordId).annotations({ description: "Listings only; null for opportunities" })
})

/** A suggestion for a member (decisions D17 "Matching"). */
export const Match = Schema.Struct({
  id: MatchId,
  user_id: UserId,
  target_type: MatchTargetType,
  target_id: RecordId,
  score: Schema.Number.pipe(Schema.between(0, 1)),
  reasons: Schema.Array(Schema.String).annotations({
    description: "What made it a match: `category`, `category:complementary`, `skills:<skill>`, `distance:<n>km`, " +
      "`availability:<day>`"
  }),
  status: MatchStatus,
  target: MatchTarget,
  computed_at: Schema.DateTimeUtc
})
export type Match = typeof Match.Type

/** A match as admins see it in the approvals queue. */
export const AdminMatch = Schema.Struct({
  ...Match.fields,
  user: Schema.NullOr(UserSummary).annotations({ description: "The member the match is for" }),
  decided_by: Schema.NullOr(UserId),
  decided_at: Schema.NullOr(Schema.DateTimeUtc),
  note: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
})
export type AdminMatch = typeof AdminMatch.Type

export const MATCHES_DEFAULT = 20
export const MATCHES_MAX = 100

/** `GET /api/v2/matches`. */
export const ListMatchesParams = Schema.Struct({
  target_type: Schema.optional(MatchTargetType),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MATCHES_MAX))).annotations({
    description: `How many of the best matches, 1 to ${MATCHES_MAX} (default ${MATCHES_DEFAULT})`
  })
})
export type ListMatchesParams = typeof ListMatchesParams.Type

export const MatchList = Schema.Struct({
  data: Schema.Array(Match),
  meta: Schema.Struct({
    total: Schema.Int.annotations({ description: "Matches the member can see (before `limit`)" }),
    computed_at: Schema.DateTimeUtc.annotations({ description: "When the suggestions were last computed" })
  })
})

export const MatchWeights = Schema.Struct({
  category: Schema.Number,
  skills: Schema.Number,
  distance: Schema.Number,
  availability: Schema.Number
})
export type MatchWeights = typeof MatchWeights.Type

/** `GET /api/v2/admin/matching/config`. */
export const MatchingConfig = Schema.Struct({
  weights: MatchWeights.annotations({ description: "0 to 10 each, not all 0" }),
  min_score: Schema.Number.annotations({ description: "0 to 1: a suggestion scoring less is no match" }),
  approval_required: Schema.Boolean.annotations({
    description: "New matches wait for an admin before members see them"
  })
})
export type MatchingConfig = typeof MatchingConfig.Type

const Weight = Schema.Number.pipe(Schema.finite(), Schema.between(0, 10))

/** `PUT /api/v2/admin/matching/config`: partial, also within `weights`. */
export const UpdateMatchingConfig = Schema.Struct({
  weights: Schema.optionalWith(
    Schema.Struct({
      category: Schema.optionalWith(Weight, { exact: true }),
      skills: Schema.optionalWith(Weight, { exact: true }),
      distance: Schema.optionalWith(Weight, { exact: true }),
      availability: Schema.optionalWith(Weight, { exact: true })
    }).annotations({ parseOptions: { onExcessProperty: "error" } }),
    { exact: true }
  ),
  min_score: Schema.optionalWith(Schema.Number.pipe(Schema.finite(), Schema.between(0, 1)), { exact: true }),
  approval_required: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type UpdateMatchingConfig = typeof UpdateMatchingConfig.Type

const Count = Schema.Int.pipe(Schema.nonNegative())

/** `GET /api/v2/admin/matching/stats`. */
export const MatchingStats = Schema.Struct({
  members_with_profile: Count,
  members_computed: Count.annotations({ description: "Members whose suggestions are computed and fresh or stale" }),
  matches: Count,
  visible: Count,
  pending: Count,
  approved: Count,
  rejected: Count,
  average_score: Schema.NullOr(Schema.Number).annotations({
    description: "Mean score of the matches not rejected; null when there are none"
  })
})
export type MatchingStats = typeof MatchingStats.Type

/** `GET /api/v2/admin/matching/approvals/stats`. */
export const ApprovalStats = Schema.Struct({ pending: Count, approved: Count, rejected: Count })
export type ApprovalStats = typeof ApprovalStats.Type

/** `GET /api/v2/admin/matching/approvals`: newest first. */
export const ListApprovalsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(ApprovalStatus).annotations({ description: "Only this status; all three when absent" }),
  user_id: Schema.optional(Schema.NumberFromString.pipe(Schema.compose(RecordId))).annotations({
    description: "Only matches of this member"
  })
})
export type ListApprovalsParams = typeof ListApprovalsParams.Type

export const MatchIdPath = Schema.Struct({ id: PathId(MatchId) })

/** `POST .../approve` and `.../reject`: an optional note (the body may be absent). */
export const DecideMatch = Schema.Union(
  Schema.Struct({ note: Schema.optionalWith(TrimmedText(0, 500), { exact: true }) }).annotations({
    parseOptions: { onExcessProperty: "error" }
  }),
  Schema.Null
).annotations({ description: "Optional `{note}`, at most 500 characters" })
export type DecideMatch = typeof DecideMatch.Type

/** `POST /api/v2/admin/matching/cache/clear`. */
export const MatchCacheCleared = Schema.Struct({
  cleared: Count.annotations({ description: "Computed matches removed (decided ones are kept)" })
})

/** 409 `ALREADY_PROCESSED`: the match was approved or rejected already. */
export class MatchAlreadyProcessed
  extends ApiError<MatchAlreadyProcessed>()("MatchAlreadyProcessed", "ALREADY_PROCESSED", 409)
{}
