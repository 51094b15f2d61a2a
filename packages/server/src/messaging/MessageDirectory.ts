import type { CurrentTenant } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbInt, decodeFirst } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const found = decodeFirst(Schema.Struct({ id: DbInt }))

/** What other features may read of direct messages (moderation checks what a member reports). */
export class MessageDirectory extends Effect.Service<MessageDirectory>()("MessageDirectory", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Whether message `id` is one of this community's and `userId` sent or received it (nobody else reads it). */
    const visibleTo = (messageId: number, userId: number): Effect.Effect<boolean, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT id FROM messages
            WHERE tenant_id = ${tenantId} AND id = ${messageId}
              AND (sender_id = ${userId} OR recipient_id = ${userId})`.pipe(found, Effect.map(Option.isSome))
      )

    return { visibleTo } as const
  })
}) {}
