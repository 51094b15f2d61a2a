import { Schema } from "effect"

/** What partners and subscribers read of a group (decisions D13: `group.created|updated` push it whole). */
export const GroupSnapshot = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  visibility: Schema.String,
  status: Schema.String,
  type_id: Schema.NullOr(Schema.Number),
  location: Schema.NullOr(Schema.String),
  owner_id: Schema.Number
})
export type GroupSnapshot = typeof GroupSnapshot.Type

/** A member created a group (`status` says whether it waits for review). */
export class GroupCreated extends Schema.TaggedClass<GroupCreated>()("GroupCreated", {
  group_id: Schema.Number,
  user_id: Schema.Number,
  group: GroupSnapshot
}) {}

/** An edit, a status change (with `previous_status`) or a hand-over (`owner_id` among `fields`). */
export class GroupUpdated extends Schema.TaggedClass<GroupUpdated>()("GroupUpdated", {
  group_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  previous_status: Schema.optionalWith(Schema.String, { exact: true }),
  group: GroupSnapshot,
  updated_by: Schema.Number
}) {}

export class GroupDeleted extends Schema.TaggedClass<GroupDeleted>()("GroupDeleted", {
  group_id: Schema.Number,
  name: Schema.String,
  visibility: Schema.String,
  owner_id: Schema.Number,
  deleted_by: Schema.Number
}) {}

/**
 * A membership became active: a member joined a public group, or an organiser approved a request (or lifted a ban;
 * `approved_by` names them, null for a join of a public group).
 */
export class GroupMemberJoined extends Schema.TaggedClass<GroupMemberJoined>()("GroupMemberJoined", {
  group_id: Schema.Number,
  group_name: Schema.String,
  visibility: Schema.String,
  user_id: Schema.Number,
  role: Schema.String,
  approved_by: Schema.NullOr(Schema.Number)
}) {}

/** An active membership ended: the member left, or was banned (`removed_by` names who banned them). */
export class GroupMemberLeft extends Schema.TaggedClass<GroupMemberLeft>()("GroupMemberLeft", {
  group_id: Schema.Number,
  group_name: Schema.String,
  user_id: Schema.Number,
  reason: Schema.Literal("left", "banned"),
  removed_by: Schema.NullOr(Schema.Number)
}) {}

/** A message in a group's chatroom; `snippet` is its start, for the bell (the body stays in the chatroom). */
export class GroupChatroomMessageSent
  extends Schema.TaggedClass<GroupChatroomMessageSent>()("GroupChatroomMessageSent", {
    group_id: Schema.Number,
    group_name: Schema.String,
    message_id: Schema.Number,
    sender_id: Schema.Number,
    snippet: Schema.String
  })
{}

/** An admin approved a group that waited for review (`pending_review` → `active`; decisions D17). */
export class GroupApproved extends Schema.TaggedClass<GroupApproved>()("GroupApproved", {
  group_id: Schema.Number,
  group_name: Schema.String,
  owner_id: Schema.Number,
  approved_by: Schema.Number
}) {}

/** An admin rejected a group that waited for review (`pending_review` → `rejected`), with their reason if any. */
export class GroupRejected extends Schema.TaggedClass<GroupRejected>()("GroupRejected", {
  group_id: Schema.Number,
  group_name: Schema.String,
  owner_id: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  rejected_by: Schema.Number
}) {}
