import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"

export const MessageId = RecordId.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type

/** The conversation of two members: one per pair, whichever of them wrote first. */
export const MessageThreadId = RecordId.pipe(Schema.brand("MessageThreadId"))
export type MessageThreadId = typeof MessageThreadId.Type

export const MESSAGE_BODY_MAX = 5000
export const MESSAGE_SUBJECT_MAX = 200

export const MessageBody = TrimmedText(1, MESSAGE_BODY_MAX)
/** Blank means no subject, like `null`. */
export const MessageSubject = TrimmedText(0, MESSAGE_SUBJECT_MAX)

/** A direct message between two members of one community, as either of them sees it. */
export class Message extends Schema.Class<Message>("Message")({
  id: MessageId,
  thread_id: MessageThreadId,
  sender_id: UserId,
  recipient_id: UserId,
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  read_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "When the recipient read it (`POST /messages/conversations/{userId}/read`); null while unread"
  }),
  created_at: Schema.DateTimeUtc
}) {}

/** The latest message of a conversation, as the conversations list shows it. */
export const LastMessage = Schema.Struct({
  id: MessageId,
  body: Schema.String,
  subject: Schema.NullOr(Schema.String),
  sender_id: UserId,
  created_at: Schema.DateTimeUtc
})
export type LastMessage = typeof LastMessage.Type

/** One of the caller's conversations: the other member, the latest message and what the caller has not read. */
export class Conversation extends Schema.Class<Conversation>("Conversation")({
  thread_id: MessageThreadId,
  user: UserSummary.annotations({ description: "The other member; the thread is addressed by their id" }),
  last_message: LastMessage,
  unread_count: Schema.Int.annotations({ description: "Messages from the other member the caller has not read" })
}) {}

/** `POST /api/v2/messages`. */
export const SendMessage = Schema.Struct({
  recipient_id: RecordId.annotations({ description: "Another member of this community" }),
  body: MessageBody.annotations({ description: `1 to ${MESSAGE_BODY_MAX} characters (code points), trimmed` }),
  subject: Schema.optional(Schema.NullOr(MessageSubject)).annotations({
    description: `At most ${MESSAGE_SUBJECT_MAX} characters; blank or null for none`
  })
})
export type SendMessage = typeof SendMessage.Type

/** `POST /api/v2/messages/conversations/{userId}/read`. */
export const ConversationRead = Schema.Struct({
  marked_read: Schema.Int.annotations({ description: "How many unread messages from the other member became read" })
})
export type ConversationRead = typeof ConversationRead.Type

/** The other member of a conversation. */
export const ConversationPath = Schema.Struct({ userId: PathId(UserId) })

export const CONVERSATIONS_PER_PAGE_DEFAULT = 20
export const CONVERSATIONS_PER_PAGE_MAX = 100
export const THREAD_PER_PAGE_DEFAULT = 50
export const THREAD_PER_PAGE_MAX = 100

/** `GET /api/v2/messages/conversations`: most recent activity first; the cursor is the last message seen. */
export const ListConversationsParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(CONVERSATIONS_PER_PAGE_MAX)).annotations({
    description: `Default ${CONVERSATIONS_PER_PAGE_DEFAULT}`
  })
})
export type ListConversationsParams = typeof ListConversationsParams.Type

/** `GET /api/v2/messages/conversations/{userId}`: newest first. */
export const ListThreadParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(THREAD_PER_PAGE_MAX)).annotations({
    description: `Default ${THREAD_PER_PAGE_DEFAULT}`
  })
})
export type ListThreadParams = typeof ListThreadParams.Type
