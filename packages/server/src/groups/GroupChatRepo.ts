import { GroupId, GroupMessageId, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `group_messages`. */
export const GroupMessageRow = Schema.Struct({
  id: dbId(GroupMessageId),
  group_id: dbId(GroupId),
  sender_id: dbId(UserId),
  body: Schema.String,
  created_at: DbDate
})
export type GroupMessageRow = typeof GroupMessageRow.Type

export interface MessageListQuery {
  readonly groupId: number
  /** Only messages older than this id (the cursor). */
  readonly before?: number | undefined
  readonly limit: number
}

const COLUMNS = "id, group_id, sender_id, body, created_at"

/** The chatrooms of groups in the current tenant. */
export class GroupChatRepo extends Effect.Service<GroupChatRepo>()("GroupChatRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    return {
      insert: (groupId: number, senderId: number, body: string) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO group_messages ${
            sql.insert({ tenant_id: tenantId, group_id: groupId, sender_id: senderId, body })
          }
            RETURNING ${columns}`.pipe(decodeSingle(GroupMessageRow))
        ),

      /** A page of a chatroom, newest first (index `group_messages_group`). */
      list: (q: MessageListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`group_id = ${q.groupId}`]
          if (q.before !== undefined) conditions.push(sql`id < ${q.before}`)
          return sql`SELECT ${columns} FROM group_messages WHERE ${sql.and(conditions)}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(decodeRows(GroupMessageRow))
        })
    } as const
  })
}) {}
