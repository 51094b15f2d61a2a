import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserSummary } from "../identity/UserSummary.js"
import { GroupTypeId, GroupTypeSummary } from "./GroupType.js"

export const GroupId = RecordId.pipe(Schema.brand("GroupId"))
export type GroupId = typeof GroupId.Type

/** Decisions D14: a group waits in `pending_review` when the community reviews new groups. */
export const GroupStatus = Schema.Literal("pending_review", "active", "dormant", "archived", "rejected")
export type GroupStatus = typeof GroupStatus.Type

/** Statuses in which a group is shown to every member of the community (the others only to its members and admins). */
export const LISTED_GROUP_STATUSES: ReadonlyArray<GroupStatus> = ["active", "dormant", "archived"]

/** Statuses in which a group takes members and chatroom messages. */
export const OPEN_GROUP_STATUSES: ReadonlyArray<GroupStatus> = ["active", "dormant"]

export const GroupVisibility = Schema.Literal("public", "private")
export type GroupVisibility = typeof GroupVisibility.Type

export const GroupRole = Schema.Literal("owner", "organiser", "member")
export type GroupRole = typeof GroupRole.Type

export const GroupMemberStatus = Schema.Literal("pending", "active", "banned")
export type GroupMemberStatus = typeof GroupMemberStatus.Type

export const GROUP_NAME_MAX = 120
export const GROUP_DESCRIPTION_MAX = 5000
export const GROUP_LOCATION_MAX = 255

export const GroupName = TrimmedText(1, GROUP_NAME_MAX)
export const GroupDescription = TrimmedText(1, GROUP_DESCRIPTION_MAX)
/** Blank clears it, like `null`. */
export const GroupLocation = TrimmedText(0, GROUP_LOCATION_MAX)

/** The caller's place in a group. */
export const MyMembership = Schema.Struct({ role: GroupRole, status: GroupMemberStatus })
export type MyMembership = typeof MyMembership.Type

/** A group as its list and its detail show it (one shape for both). */
export class Group extends Schema.Class<Group>("Group")({
  id: GroupId,
  name: Schema.String,
  description: Schema.String,
  type_id: Schema.NullOr(GroupTypeId),
  type: Schema.NullOr(GroupTypeSummary),
  visibility: GroupVisibility,
  location: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number).annotations({ description: "Where `location` is, once an admin geocoded it" }),
  longitude: Schema.NullOr(Schema.Number).annotations({ description: "Null until geocoded; a new location clears it" }),
  status: GroupStatus,
  owner: UserSummary.annotations({ description: "The member who owns the group" }),
  member_count: Schema.Int.annotations({ description: "Active members, the owner included" }),
  membership: Schema.NullOr(MyMembership).annotations({
    description: "The caller's membership (pending, active or banned), null when they have none"
  }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** `POST /api/v2/groups`. */
export const CreateGroup = Schema.Struct({
  name: GroupName,
  description: GroupDescription,
  type_id: exact(Schema.NullOr(RecordId)).annotations({ description: "A group type of this community" }),
  visibility: GroupVisibility.annotations({
    description: "`public`: anyone joins at once; `private`: an organiser approves each request"
  }),
  location: exact(Schema.NullOr(GroupLocation))
})
export type CreateGroup = typeof CreateGroup.Type

/** `PUT /api/v2/groups/{id}`: any subset; `null` clears an optional field. */
export const UpdateGroup = Schema.Struct({
  name: exact(GroupName),
  description: exact(GroupDescription),
  type_id: exact(Schema.NullOr(RecordId)),
  visibility: exact(GroupVisibility),
  location: exact(Schema.NullOr(GroupLocation)),
  status: exact(GroupStatus).annotations({
    description: "Admins set any status; the owner may archive an active or dormant group; nobody else changes it"
  })
})
export type UpdateGroup = typeof UpdateGroup.Type

export const GroupIdPath = Schema.Struct({ id: PathId(GroupId) })

export const GroupDeleted = Schema.Struct({ id: GroupId, deleted: Schema.Literal(true) })
export type GroupDeleted = typeof GroupDeleted.Type

const IdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId))
const SearchParam = Schema.Trim.pipe(Schema.maxLength(200)).annotations({
  description: "Part of the name or description (case-insensitive; % and _ match themselves)"
})

export const GROUPS_PER_PAGE_DEFAULT = 20
export const GROUPS_PER_PAGE_MAX = 50

/** `GET /api/v2/groups`: newest first. */
export const ListGroupsParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(GROUPS_PER_PAGE_MAX)).annotations({ description: "Default 20" }),
  search: Schema.optional(SearchParam),
  type_id: Schema.optional(IdParam).annotations({ description: "Only groups of this type" })
})
export type ListGroupsParams = typeof ListGroupsParams.Type
