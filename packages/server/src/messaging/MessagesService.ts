import {
  type ConversationRead,
  CONVERSATIONS_PER_PAGE_DEFAULT,
  cursorPage,
  DomainEvents,
  encodeCursor,
  type ListConversationsParams,
  type ListThreadParams,
  NotFound,
  type SendMessage,
  THREAD_PER_PAGE_DEFAULT,
  type UserId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { MessageRepo } from "./MessageRepo.js"
import { conversationView, messageView } from "./MessageViews.js"

/** Another tenant's member, an erased one and an id nobody has: one answer, so nothing is learnt of the others. */
const memberNotFound = (field?: string) =>
  new NotFound({ message: "Member not found", ...(field === undefined ? {} : { field }) })

const emptyPage = (perPage: number) => ({ data: [], meta: { per_page: perPage, has_more: false } })

/**
 * Direct messages between members (decisions D14). A conversation is addressed by the other member's id, so only
 * its two members can name it. The contract gates the routes on the `messages` feature.
 */
export class MessagesService extends Effect.Service<MessagesService>()("MessagesService", {
  dependencies: [
    MessageRepo.Default,
    MemberDirectory.Default,
    UserSummaries.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* MessageRepo
    const members = yield* MemberDirectory
    const users = yield* UserSummaries
    const outbox = yield* Outbox

    /** Someone the caller may write to: another member of this community who can sign in. */
    const recipient = (me: number, id: number) =>
      members.requireOtherActive(me, id, {
        field: "recipient_id",
        self: "you cannot send a message to yourself",
        inactive: "this member cannot receive messages now"
      })

    const send = Effect.fn("Messages.send")(
      function*(input: SendMessage) {
        const me = yield* CommunityMember
        yield* recipient(me.userId, input.recipient_id)
        const subject = input.subject === undefined || input.subject === null || input.subject === ""
          ? null
          : input.subject
        const row = yield* db.transaction(Effect.gen(function*() {
          const threadId = yield* repo.lockThread(me.userId, input.recipient_id)
          const row = yield* repo.insert({
            threadId,
            senderId: me.userId,
            recipientId: input.recipient_id,
            subject,
            body: input.body
          })
          yield* repo.recordLast(row)
          yield* outbox.append(
            new DomainEvents.MessageSent({
              message_id: row.id,
              thread_id: row.thread_id,
              sender_id: row.sender_id,
              recipient_id: row.recipient_id,
              subject: row.subject,
              body: row.body
            })
          )
          return row
        }))
        return messageView(row)
      },
      requireCommunityMember("send messages")
    )

    /** One query for the page of conversations (with their last messages) and one for the other members. */
    const conversations = Effect.fn("Messages.conversations")(
      function*(params: ListConversationsParams) {
        const me = yield* CommunityMember
        const perPage = params.per_page ?? CONVERSATIONS_PER_PAGE_DEFAULT
        const rows = yield* repo.conversations(me.userId, { before: params.cursor, limit: perPage + 1 })
        const page = cursorPage(rows, perPage, (last) => encodeCursor(last.last_message_id))
        const summaries = yield* users.byIds(page.data.map((row) => row.other_user_id))
        return { data: page.data.map((row) => conversationView(row, summaries)), meta: page.meta }
      },
      requireCommunityMember("read messages")
    )

    /**
     * The caller's thread with `userId`. Without one, a member of this community has an empty conversation and
     * anyone else is 404. With one, it stays readable whatever became of the other member (suspended, erased).
     */
    const threadWith = (me: number, userId: UserId) =>
      Effect.gen(function*() {
        const thread = yield* repo.threadBetween(me, userId)
        if (Option.isNone(thread) && Option.isNone(yield* members.find(userId))) return yield* memberNotFound()
        return thread
      })

    const thread = Effect.fn("Messages.thread")(
      function*(userId: UserId, params: ListThreadParams) {
        const me = yield* CommunityMember
        const perPage = params.per_page ?? THREAD_PER_PAGE_DEFAULT
        const threadId = yield* threadWith(me.userId, userId)
        if (Option.isNone(threadId)) return emptyPage(perPage)
        const rows = yield* repo.thread(threadId.value, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(messageView)))
      },
      requireCommunityMember("read messages")
    )

    const markRead = Effect.fn("Messages.markRead")(
      function*(userId: UserId) {
        const me = yield* CommunityMember
        const threadId = yield* threadWith(me.userId, userId)
        const marked = Option.isNone(threadId) ? 0 : yield* db.transaction(repo.markRead(threadId.value, me.userId))
        return { marked_read: marked } satisfies ConversationRead
      },
      requireCommunityMember("read messages")
    )

    return { send, conversations, thread, markRead } as const
  })
}) {}
