import { Conversation, Message, type UserId, type UserSummary } from "@timebank/domain"
import { DateTime } from "effect"
import type { ConversationRow, MessageRow } from "./MessageRepo.js"

/** Shown for a member the users table no longer answers for (it keeps erased users, so this should not happen). */
const unknownMember = (id: UserId): UserSummary => ({ id, first_name: "Deleted", last_name: "User", avatar_url: null })

/** A message as either of its two members sees it (the list and the answer to a send share it). */
export const messageView = (row: MessageRow): Message =>
  Message.make({
    id: row.id,
    thread_id: row.thread_id,
    sender_id: row.sender_id,
    recipient_id: row.recipient_id,
    subject: row.subject,
    body: row.body,
    read_at: row.read_at === null ? null : DateTime.unsafeFromDate(row.read_at),
    created_at: DateTime.unsafeFromDate(row.created_at)
  }, true)

/** A conversation of the caller's list, the other member's summary taken from the page's one lookup. */
export const conversationView = (
  row: ConversationRow,
  summaries: ReadonlyMap<number, UserSummary>
): Conversation =>
  Conversation.make({
    thread_id: row.thread_id,
    user: summaries.get(row.other_user_id) ?? unknownMember(row.other_user_id),
    last_message: {
      id: row.last_message_id,
      body: row.body,
      subject: row.subject,
      sender_id: row.sender_id,
      created_at: DateTime.unsafeFromDate(row.created_at)
    },
    unread_count: row.unread_count
  }, true)
