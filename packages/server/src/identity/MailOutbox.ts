import type { Tenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbInt, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
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
