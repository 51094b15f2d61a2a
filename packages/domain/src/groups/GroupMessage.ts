import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserSummary } from "../identity/UserSummary.js"
import { GroupId } from "./Group.js"

export const GroupMessageId = RecordId.pipe(Schema.brand("GroupMessageId"))
export type GroupMessageId = typeof GroupMessageId.Type

export const GROUP_MESSAGE_MAX = 5000

/** A message of a group's chatroom. */
export class GroupMessage extends Schema.Class<GroupMessage>("GroupMessage")({
  id: GroupMessageId,
  group_id: GroupId,
  sender: UserSummary,
  body: Schema.String,
  created_at: Schema.DateTimeUtc
}) {}

/** `POST /api/v2/groups/{id}/messages`. */
export const PostGroupMessage = Schema.Struct({ body: TrimmedText(1, GROUP_MESSAGE_MAX) })
export type PostGroupMessage = typeof PostGroupMessage.Type

export const GROUP_MESSAGES_PER_PAGE_DEFAULT = 50
export const GROUP_MESSAGES_PER_PAGE_MAX = 100

/** `GET /api/v2/groups/{id}/messages`: newest first. */
export const ListGroupMessagesParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(GROUP_MESSAGES_PER_PAGE_MAX)).annotations({ description: "Default 50" })
})
export type ListGroupMessagesParams = typeof ListGroupMessagesParams.Type
