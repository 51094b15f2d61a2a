import { Schema } from "effect"
import { ApiError } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import {
  Group,
  GroupDescription,
  GroupId,
  GroupLocation,
  GroupMemberStatus,
  GroupName,
  GroupRole,
  GroupStatus,
  GroupVisibility
} from "./Group.js"

/** 409 `ALREADY_PROCESSED` (decisions D15): approving or rejecting a group that no longer waits for review. */
export class GroupAlreadyProcessed
  extends ApiError<GroupAlreadyProcessed>()("GroupAlreadyProcessed", "ALREADY_PROCESSED", 409)
{}

const Count = Schema.Int.pipe(Schema.nonNegative())

/** A group's memberships by status. */
export const GroupMemberCounts = Schema.Struct({ active: Count, pending: Count, banned: Count })
export type GroupMemberCounts = typeof GroupMemberCounts.Type

/** A group as the admin routes show it: the member routes' shape, with its memberships by status and featuring. */
export class AdminGroup extends Schema.Class<AdminGroup>("AdminGroup")({
  ...Group.fields,
  member_counts: GroupMemberCounts.annotations({ description: "Memberships of the group by status" }),
  is_featured: Schema.Boolean,
  featured_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "Since when the group is featured; the featured list is in this order"
  })
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
const strict = { parseOptions: { onExcessProperty: "error" } } as const

const IdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId))
const BooleanParam = Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, {
  strict: true,
  decode: (text) => text === "true",
  encode: (flag) => (flag ? "true" : "false")
})

/** `GET /api/v2/admin/groups`: every status, newest first. */
export const AdminListGroupsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(GroupStatus).annotations({ description: "Only groups with this status" }),
  type_id: Schema.optional(IdParam).annotations({ description: "Only groups of this type" }),
  visibility: Schema.optional(GroupVisibility),
  featured: Schema.optional(BooleanParam).annotations({ description: "Only featured (or only other) groups" }),
  search: Schema.optional(Schema.Trim.pipe(Schema.maxLength(200))).annotations({
    description: "Part of the name or description (case-insensitive)"
  }),
  owner_id: Schema.optional(IdParam).annotations({ description: "Only groups this member owns" })
})
export type AdminListGroupsParams = typeof AdminListGroupsParams.Type

/** `GET /api/v2/admin/groups/{groupId}/members`: in member id order. */
export const AdminGroupMembersParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(GroupMemberStatus),
  role: Schema.optional(GroupRole)
})
export type AdminGroupMembersParams = typeof AdminGroupMembersParams.Type

export const AdminGroupPath = Schema.Struct({ id: PathId(GroupId) })
export const AdminGroupIdPath = Schema.Struct({ groupId: PathId(GroupId) })

/** `PUT /api/v2/admin/groups/{id}`: any subset; `null` clears an optional field; `owner_id` hands the group over. */
export const AdminUpdateGroup = Schema.Struct({
  name: exact(GroupName),
  description: exact(GroupDescription),
  type_id: exact(Schema.NullOr(RecordId)),
  visibility: exact(GroupVisibility),
  location: exact(Schema.NullOr(GroupLocation)),
  owner_id: exact(RecordId).annotations({
    description: "A member of the group (not banned) who becomes its owner; the old owner becomes an organiser"
  })
}).annotations(strict)
export type AdminUpdateGroup = typeof AdminUpdateGroup.Type

/** `PUT /api/v2/admin/groups/{id}/status`. */
export const SetGroupStatus = Schema.Struct({ status: GroupStatus }).annotations(strict)
export type SetGroupStatus = typeof SetGroupStatus.Type

export const GROUP_REJECTION_REASON_MAX = 1000

/** `POST /api/v2/admin/groups/approvals/{groupId}/reject`: `{}`, `{"reason": ...}` or no body. */
export const RejectGroupPayload = Schema.Union(
  Schema.Struct({ reason: exact(Schema.NullOr(TrimmedText(0, GROUP_REJECTION_REASON_MAX))) }).annotations(strict),
  Schema.Null
).annotations({ description: "Optional; the reason is told to the group's owner" })
export type RejectGroupPayload = typeof RejectGroupPayload.Type

export const FEATURED_GROUPS_MAX = 100

/** `POST /api/v2/admin/groups/featured/update`: exactly these groups are featured, in this order. */
export const UpdateFeaturedGroups = Schema.Struct({
  group_ids: Schema.Array(RecordId).pipe(Schema.maxItems(FEATURED_GROUPS_MAX)).annotations({
    description: `Active groups of this community, at most ${FEATURED_GROUPS_MAX}; an empty list features none`
  })
}).annotations(strict)
export type UpdateFeaturedGroups = typeof UpdateFeaturedGroups.Type

export const RECOMMENDATIONS_DEFAULT = 10
export const RECOMMENDATIONS_MAX = 50

/** `GET /api/v2/admin/groups/recommendations`. */
export const GroupRecommendationsParams = Schema.Struct({
  user_id: IdParam.annotations({ description: "The member to recommend groups to" }),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, RECOMMENDATIONS_MAX)))
    .annotations({ description: `How many, 1 to ${RECOMMENDATIONS_MAX} (default ${RECOMMENDATIONS_DEFAULT})` })
})
export type GroupRecommendationsParams = typeof GroupRecommendationsParams.Type

/** Why a group is recommended. */
export const RecommendationReason = Schema.Literal("same_type", "same_location", "connections", "popular", "active")
export type RecommendationReason = typeof RecommendationReason.Type

export const GroupRecommendation = Schema.Struct({
  group: AdminGroup,
  score: Schema.Number.annotations({ description: "0 to 1, higher first" }),
  reasons: Schema.Array(RecommendationReason),
  connections: Count.annotations({ description: "The member's connections who are active members of the group" })
})
export type GroupRecommendation = typeof GroupRecommendation.Type

/** `GET /api/v2/admin/groups/analytics` (decisions D17; shape decided in docs/decisions.md). */
export const GroupAnalytics = Schema.Struct({
  groups: Schema.Struct({
    total: Count.annotations({ description: "Groups of the community, deleted ones not counted" }),
    by_status: Schema.Struct({
      pending_review: Count,
      active: Count,
      dormant: Count,
      archived: Count,
      rejected: Count
    }),
    featured: Count
  }),
  members: Schema.Struct({
    total: Count.annotations({ description: "Memberships of every status in the community's groups" }),
    active: Count.annotations({ description: "Active memberships" }),
    pending: Count,
    banned: Count,
    distinct_active: Count.annotations({ description: "Members with at least one active membership" })
  }),
  activity: Schema.Struct({
    since: Schema.DateTimeUtc.annotations({ description: "The window's start: 30 days before the request" }),
    chatroom_messages: Count,
    feed_posts: Count.annotations({ description: "Feed posts in groups (deleted ones not counted)" }),
    active_groups: Count.annotations({ description: "Groups with a chatroom message or a feed post in the window" })
  }),
  growth: Schema.Array(Schema.Struct({
    month: Schema.String.annotations({ description: "YYYY-MM (UTC)" }),
    new_groups: Count,
    new_memberships: Count.annotations({ description: "Memberships (still held) that began that month" })
  })).annotations({ description: "The last 12 months, oldest first, the current one included" })
})
export type GroupAnalytics = typeof GroupAnalytics.Type
