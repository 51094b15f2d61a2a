import { FederatedMessageId, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `federation_messages`, with its partner's name for the member's list. */
export const FederatedMessageRow = Schema.Struct({
  id: dbId(FederatedMessageId),
  partner_id: DbInt,
  partner_name: Schema.String,
  recipient_id: dbId(UserId),
  subject: Schema.NullOr(Schema.String),
  body: Schema.String,
  sender_name: Schema.String,
  sender_external_id: Schema.String,
  read_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type FederatedMessageRow = typeof FederatedMessageRow.Type

export interface NewFederatedMessage {
  readonly partnerId: number
  readonly recipientId: number
  readonly subject: string | null
  readonly body: string
  readonly senderName: string
  readonly senderExternalId: string
}

const COLUMNS = "m.id, m.partner_id, p.name AS partner_name, m.recipient_id, m.subject, m.body, m.sender_name, " +
  "m.sender_external_id, m.read_at, m.created_at"

const all = decodeRows(FederatedMessageRow)
const first = decodeFirst(FederatedMessageRow)

/** Messages partners' members sent ours (index `federation_messages_recipient` for a member's list). */
export class FederatedMessageRepo extends Effect.Service<FederatedMessageRepo>()("FederatedMessageRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    const byId = (tenantId: number, recipientId: number, id: number) =>
      sql`SELECT ${columns} FROM federation_messages m JOIN federation_partners p ON p.id = m.partner_id
          WHERE m.tenant_id = ${tenantId} AND m.recipient_id = ${recipientId} AND m.id = ${id}`.pipe(first)

    return {
      insert: (m: NewFederatedMessage) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_messages ${
            sql.insert({
              tenant_id: tenantId,
              partner_id: m.partnerId,
              recipient_id: m.recipientId,
              subject: m.subject,
              body: m.body,
              sender_name: m.senderName,
              sender_external_id: m.senderExternalId
            })
          }
            RETURNING id, created_at`.pipe(
            decodeSingle(Schema.Struct({ id: dbId(FederatedMessageId), created_at: DbDate }))
          )
        ),

      /** A member's messages, newest first, older than `before`. */
      page: (recipientId: number, q: { readonly before?: number | undefined; readonly limit: number }) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_messages m JOIN federation_partners p ON p.id = m.partner_id
              WHERE m.tenant_id = ${tenantId} AND m.recipient_id = ${recipientId}
                ${q.before === undefined ? sql`` : sql`AND m.id < ${q.before}`}
              ORDER BY m.id DESC LIMIT ${q.limit}`.pipe(all)
        ),

      /** Marks the member's message read (the first time only) and reads it back; none for another's. */
      markRead: (recipientId: number, id: number) =>
        db.query((tenantId) =>
          sql`UPDATE federation_messages SET read_at = now()
              WHERE tenant_id = ${tenantId} AND recipient_id = ${recipientId} AND id = ${id} AND read_at IS NULL`.pipe(
            Effect.zipRight(byId(tenantId, recipientId, id))
          )
        )
    } as const
  })
}) {}
