import { MessageId, MessageThreadId, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `messages`. */
export const MessageRow = Schema.Struct({
  id: dbId(MessageId),
  thread_id: dbId(MessageThreadId),
  sender_id: dbId(UserId),
  recipient_id: dbId(UserId),
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  read_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type MessageRow = typeof MessageRow.Type

/** A member's summary row of a thread joined to the thread's last message. */
export const ConversationRow = Schema.Struct({
  thread_id: dbId(MessageThreadId),
  other_user_id: dbId(UserId),
  unread_count: DbInt,
  last_message_id: dbId(MessageId),
  sender_id: dbId(UserId),
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  created_at: DbDate
})
export type ConversationRow = typeof ConversationRow.Type

const ThreadRow = Schema.Struct({ id: dbId(MessageThreadId) })
const firstThread = decodeFirst(ThreadRow)
const messages = decodeRows(MessageRow)
const conversations = decodeRows(ConversationRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

export interface PageQuery {
  /** Only rows older than this message id (the cursor). */
  readonly before?: number | undefined
  readonly limit: number
}

export interface NewMessage {
  readonly threadId: number
  readonly senderId: number
  readonly recipientId: number
  readonly subject: string | null
  readonly body: string
}

const COLUMNS = "id, thread_id, sender_id, recipient_id, subject, body, read_at, created_at"

/** The pair's key: the lower id first, so a pair has one thread whichever way a message goes. */
const pair = (a: number, b: number) => (a < b ? [a, b] as const : [b, a] as const)

/** Direct messages, their threads and each member's summary row of a thread, in the current tenant. */
export class MessageRepo extends Effect.Service<MessageRepo>()("MessageRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    return {
      /** The thread of two members, if they ever exchanged a message (index `message_threads_pair`). */
      threadBetween: (a: number, b: number) => {
        const [low, high] = pair(a, b)
        return db.query((tenantId) =>
          sql`SELECT id FROM message_threads
              WHERE tenant_id = ${tenantId} AND user_low = ${low} AND user_high = ${high}`.pipe(
            firstThread,
            Effect.map(Option.map((row) => row.id))
          )
        )
      },

      /**
       * The thread of two members, made on their first message, and LOCKED until the transaction ends: sends within
       * one pair queue on this row (it is the first lock every send takes), so two members writing to each other at
       * once neither deadlock nor overwrite each other's summary rows. Call inside a transaction.
       */
      lockThread: (a: number, b: number) => {
        const [low, high] = pair(a, b)
        return db.query((tenantId) =>
          sql`
            INSERT INTO message_threads (tenant_id, user_low, user_high) VALUES (${tenantId}, ${low}, ${high})
            ON CONFLICT (tenant_id, user_low, user_high) DO UPDATE SET user_low = EXCLUDED.user_low
            RETURNING id`.pipe(
            decodeSingle(ThreadRow),
            Effect.map((row) => row.id)
          )
        )
      },

      insert: (m: NewMessage) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO messages ${
            sql.insert({
              tenant_id: tenantId,
              thread_id: m.threadId,
              sender_id: m.senderId,
              recipient_id: m.recipientId,
              subject: m.subject,
              body: m.body
            })
          }
            RETURNING ${columns}`.pipe(decodeSingle(MessageRow))
        ),

      /**
       * Both members' summary rows of the message's thread, in one statement: the message is the last of each; the
       * recipient has one more unread. Rows are written in user id order (the lock order). Call inside the
       * transaction that holds the thread (`lockThread`).
       */
      recordLast: (m: MessageRow) =>
        db.query((tenantId) => {
          const sender = [m.sender_id, m.recipient_id, 0] as const
          const recipient = [m.recipient_id, m.sender_id, 1] as const
          const rows = (m.sender_id < m.recipient_id ? [sender, recipient] : [recipient, sender]).map((
            [user, other, unread]
          ) => ({
            tenant_id: tenantId,
            thread_id: m.thread_id,
            user_id: user,
            other_user_id: other,
            last_message_id: m.id,
            last_message_at: m.created_at,
            unread_count: unread
          }))
          return sql`
            INSERT INTO message_thread_members ${sql.insert(rows)}
            ON CONFLICT (thread_id, user_id) DO UPDATE SET
              last_message_id = EXCLUDED.last_message_id,
              last_message_at = EXCLUDED.last_message_at,
              unread_count = message_thread_members.unread_count + EXCLUDED.unread_count`.pipe(Effect.asVoid)
        }),

      /**
       * A page of a member's conversations, most recent activity first, each with its last message: ONE query
       * (index range on `message_thread_members_inbox`, the last messages by primary key).
       */
      conversations: (userId: number, q: PageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT tm.thread_id, tm.other_user_id, tm.unread_count, tm.last_message_id,
                   m.sender_id, m.subject, m.body, m.created_at
            FROM message_thread_members tm
            JOIN messages m ON m.id = tm.last_message_id AND m.tenant_id = tm.tenant_id
            WHERE tm.tenant_id = ${tenantId} AND tm.user_id = ${userId}
              ${q.before === undefined ? sql`` : sql`AND tm.last_message_id < ${q.before}`}
            ORDER BY tm.last_message_id DESC
            LIMIT ${q.limit}`.pipe(conversations)
        ),

      /** A page of a thread, newest first (index `messages_thread`). */
      thread: (threadId: number, q: PageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT ${columns} FROM messages
            WHERE tenant_id = ${tenantId} AND thread_id = ${threadId}
              ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC
            LIMIT ${q.limit}`.pipe(messages)
        ),

      /**
       * Marks what the other member sent `userId` in the thread read, and zeroes `userId`'s unread count; answers how
       * many messages it marked. The summary row is locked FIRST: a send in flight holds it until it commits, so the
       * messages the update then sees are exactly the ones the count held (no unread message is left behind with a
       * count of 0). Call inside a transaction.
       */
      markRead: (threadId: number, userId: number) =>
        db.query((tenantId) =>
          Effect.zipRight(
            sql`UPDATE message_thread_members SET unread_count = 0
                WHERE tenant_id = ${tenantId} AND thread_id = ${threadId} AND user_id = ${userId}`,
            sql`
              WITH marked AS (
                UPDATE messages SET read_at = now()
                WHERE thread_id = ${threadId} AND recipient_id = ${userId} AND read_at IS NULL
                  AND tenant_id = ${tenantId}
                RETURNING 1
              )
              SELECT count(*) AS n FROM marked`.pipe(count, Effect.map((row) => row.n))
          )
        )
    } as const
  })
}) {}
