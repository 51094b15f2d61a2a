import type { Tenant } from "@timebank/domain"
import { Cause, Effect, Option, Schema } from "effect"
import { MailOutbox, type MailOutcome, type PendingMail } from "../../identity/MailOutbox.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { languageFor } from "../messages/Messages.js"
import { retryDelayMs } from "./MailSchedule.js"
import { MailSender } from "./MailSender.js"
import { passwordResetMail, type Recipient, welcomeMail } from "./MailTemplates.js"
import { MailTransport, type OutgoingMail } from "./MailTransport.js"

const Link = Schema.Struct({ token: Schema.String, expires_at: Schema.String })

/** What identity puts in `data` (MailOutbox.recipientData plus the template's own fields). */
const AccountMailData = Schema.Struct({
  first_name: Schema.optional(Schema.String),
  language: Schema.optional(Schema.NullOr(Schema.String)),
  tenant_slug: Schema.optional(Schema.String),
  token: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.String),
  set_password: Schema.optional(Link)
})
const decodeData = Schema.decodeUnknownOption(AccountMailData)

const BATCH = 20
const RETRY_BASE_MS = 30_000

/**
 * Identity's account mails (`mail_outbox`: `welcome`, `password_reset`), sent through the same transport and
 * templates. They are mails the member or an admin asked for, so they go whatever the member's e-mail switches
 * say. The outbox table has no retry columns: a mail whose send failed stays pending and this runner waits before
 * trying it again (held in memory; a new runner simply tries sooner); after 7 days it is given up.
 */
export class AccountMail extends Effect.Service<AccountMail>()("AccountMail", {
  dependencies: [MailOutbox.Default, MailTransport.Default, TenantDirectory.Default, MailSender.Default],
  effect: Effect.gen(function*() {
    const outbox = yield* MailOutbox
    const transport = yield* MailTransport
    const tenants = yield* TenantDirectory
    const sender = yield* MailSender
    const { publicUrl } = yield* AppConfig
    const retries = new Map<number, { readonly attempts: number; readonly at: number }>()

    const linkTo = (tenant: Tenant, token: string) =>
      `${publicUrl.replace(/\/+$/, "")}/password-reset?tenant=${encodeURIComponent(tenant.slug)}&token=${
        encodeURIComponent(token)
      }`

    /** The message of an outbox mail; none when it cannot be made (unknown template, a link without its token). */
    const render = (mail: PendingMail, tenant: Tenant, now: Date): Option.Option<OutgoingMail> =>
      Option.flatMap(decodeData(mail.data), (data) => {
        const recipient: Recipient = {
          to: mail.to_email,
          language: languageFor(data.language, tenant.settings.default_language),
          community: tenant.name,
          name: data.first_name ?? null,
          unsubscribeUrl: mail.user_id === null ? null : sender.unsubscribeUrl(tenant.id, mail.user_id, "all")
        }
        switch (mail.template) {
          case "password_reset":
            return data.token === undefined || data.expires_at === undefined
              ? Option.none()
              : Option.some(
                passwordResetMail(recipient, { url: linkTo(tenant, data.token), expiresAt: data.expires_at }, now)
              )
          case "welcome":
            return Option.some(welcomeMail(
              recipient,
              data.set_password === undefined
                ? null
                : { url: linkTo(tenant, data.set_password.token), expiresAt: data.set_password.expires_at },
              now
            ))
          default:
            return Option.none()
        }
      })

    const deliver = (now: Date) => (mail: PendingMail): Effect.Effect<MailOutcome> =>
      Effect.gen(function*() {
        const tenant = yield* tenants.findById(mail.tenant_id)
        if (Option.isNone(tenant)) return "failed" as const
        const message = render(mail, tenant.value, now)
        if (Option.isNone(message)) {
          yield* Effect.logError("account mail cannot be rendered").pipe(
            Effect.annotateLogs({ mail_id: mail.id, template: mail.template })
          )
          return "failed" as const
        }
        const sent = yield* Effect.either(transport.send(message.value))
        if (sent._tag === "Right") {
          retries.delete(mail.id)
          return "sent" as const
        }
        const attempts = (retries.get(mail.id)?.attempts ?? 0) + 1
        retries.set(mail.id, { attempts, at: now.getTime() + retryDelayMs(attempts, RETRY_BASE_MS) })
        yield* Effect.logWarning("account mail send failed").pipe(
          Effect.annotateLogs({ mail_id: mail.id, attempts, reason: sent.left.reason })
        )
        return "retry" as const
      })

    /**
     * One round: up to a batch of pending account mails, each in its own short transaction; only `tenantId`'s when
     * given (the `email.send` job's run).
     */
    const sendPending = (now: Date, tenantId?: number) =>
      Effect.gen(function*() {
        const report = { sent: 0, retried: 0, failed: 0 }
        const waiting = [...retries].filter(([, r]) => r.at > now.getTime()).map(([id]) => id)
        for (let i = 0; i < BATCH; i++) {
          const done = yield* outbox.deliverNext([...waiting], deliver(now), tenantId)
          if (Option.isNone(done)) break
          const { id, outcome } = done.value
          if (outcome === "sent") report.sent++
          else if (outcome === "failed") {
            retries.delete(id)
            report.failed++
          } else {
            report.retried++
            waiting.push(id)
          }
        }
        return report
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(Effect.logError("account mail round failed", cause), { sent: 0, retried: 0, failed: 0 })
        ),
        Effect.withSpan("Mail.sendAccountMail")
      )

    /** Account mails pending for 7 days are given up (of every community, or only `tenantId`'s). */
    const expire = (now: Date, tenantId?: number) => outbox.expire(new Date(now.getTime() - 7 * 86_400_000), tenantId)

    return { sendPending, expire } as const
  })
}) {}
