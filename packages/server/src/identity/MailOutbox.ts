import type { Tenant } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { dieOnSqlError, TenantSql } from "../platform/TenantSql.js"
import type { UserRow } from "./UserRecord.js"

/** Templates the notifications feature renders; `data` carries what each one needs. */
export type MailTemplate = "welcome" | "password_reset"

export interface MailToQueue {
  readonly userId: number | null
  readonly to: string
  readonly template: MailTemplate
  readonly data: Record<string, unknown>
}

/** Who a mail is for and from which community: what every template greets and signs with. */
export const recipientData = (
  user: Pick<UserRow, "first_name" | "last_name" | "email" | "preferred_language">,
  tenant: Pick<Tenant, "id" | "slug" | "name">
) => ({
  first_name: user.first_name,
  last_name: user.last_name,
  email: user.email,
  language: user.preferred_language,
  tenant_id: tenant.id,
  tenant_slug: tenant.slug,
  tenant_name: tenant.name
})

const insertedId = decodeSingle(Schema.Struct({ id: DbInt }))

/** A mail waiting in the outbox, as the mailer reads it. */
export const PendingMail = Schema.Struct({
  id: DbInt,
  tenant_id: DbInt,
  user_id: Schema.NullOr(DbInt),
  to_email: Schema.String,
  template: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type PendingMail = typeof PendingMail.Type

/** What became of a mail: `retry` leaves it pending for a later attempt. */
export type MailOutcome = "sent" | "failed" | "retry"

const OutboxCounts = Schema.Struct({ pending: DbInt, sent: DbInt, failed: DbInt })

/**
 * E-mails of the current tenant waiting in `mail_outbox` for the notifications feature to render and deliver.
 * Queue them inside the transaction of the change that causes them, like outbox events.
 */
export class MailOutbox extends Effect.Service<MailOutbox>()("MailOutbox", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      queue: (mail: MailToQueue) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO mail_outbox (tenant_id, user_id, to_email, template, data)
            VALUES (${tenantId}, ${mail.userId}, ${mail.to}, ${mail.template}, ${JSON.stringify(mail.data)}::jsonb)
            RETURNING id`.pipe(insertedId, Effect.map((row) => row.id))
        ).pipe(Effect.withSpan("MailOutbox.queue", { attributes: { template: mail.template } })),

      /**
       * The mailer's side (all communities, outside any request): takes the oldest pending mail not in `skip`,
       * locked so that another runner passes it by, hands it to `deliver` and records the outcome, in one
       * transaction. None when nothing is waiting. Only `tenantId`'s mail when given.
       */
      deliverNext: <R>(
        skip: ReadonlyArray<number>,
        deliver: (mail: PendingMail) => Effect.Effect<MailOutcome, never, R>,
        tenantId?: number
      ) =>
        sql.withTransaction(Effect.gen(function*() {
          const [mail] = yield* sql`
            SELECT id, tenant_id, user_id, to_email, template, data FROM mail_outbox
            WHERE status = 'pending' AND id <> ALL(${pgArray(skip)}::bigint[])
              ${tenantId === undefined ? sql`` : sql`AND tenant_id = ${tenantId}`}
            ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`.pipe(decodeRows(PendingMail))
          if (mail === undefined) return Option.none<{ readonly id: number; readonly outcome: MailOutcome }>()
          const outcome = yield* deliver(mail)
          if (outcome !== "retry") yield* sql`UPDATE mail_outbox SET status = ${outcome} WHERE id = ${mail.id}`
          return Option.some({ id: mail.id, outcome })
        })).pipe(dieOnSqlError),

      /** Mail still pending after 7 days is given up (all communities, or only `tenantId`'s). */
      expire: (before: Date, tenantId?: number) =>
        sql`UPDATE mail_outbox SET status = 'failed' WHERE status = 'pending' AND created_at < ${before}
          ${tenantId === undefined ? sql`` : sql`AND tenant_id = ${tenantId}`}
          RETURNING id`.pipe(Effect.map((rows) => rows.length), dieOnSqlError),

      /** The current community's mails by status. */
      counts: db.query((tenantId) =>
        sql`
          SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
                 count(*) FILTER (WHERE status = 'sent') AS sent,
                 count(*) FILTER (WHERE status = 'failed') AS failed
          FROM mail_outbox WHERE tenant_id = ${tenantId}`.pipe(decodeSingle(OutboxCounts))
      ),

      /** For an erased user: unsent mail is dropped, and sent mail keeps no address or content. */
      forgetUser: (userId: number) =>
        db.query((tenantId) =>
          Effect.zipRight(
            sql`DELETE FROM mail_outbox WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND status = 'pending'`,
            sql`UPDATE mail_outbox SET to_email = '', data = '{}'
                WHERE tenant_id = ${tenantId} AND user_id = ${userId}`
          ).pipe(Effect.asVoid)
        )
    } as const
  })
}) {}
