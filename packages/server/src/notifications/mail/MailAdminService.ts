import {
  CurrentTenant,
  type MailStatus,
  type TestMailInput,
  type TestMailResult,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Either, Option, Redacted } from "effect"
import { MailOutbox } from "../../identity/MailOutbox.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { languageFor } from "../messages/Messages.js"
import { checkProvider } from "./MailProviderCheck.js"
import { MailQueueRepo } from "./MailQueueRepo.js"
import { MailRecipients } from "./MailRecipients.js"
import { MailSender } from "./MailSender.js"
import { testMail } from "./MailTemplates.js"
import { MailTransport } from "./MailTransport.js"

/** The community's e-mail for its admins: what the transport is, how the queue stands, and a real test send. */
export class MailAdminService extends Effect.Service<MailAdminService>()("MailAdminService", {
  dependencies: [
    MailQueueRepo.Default,
    MailOutbox.Default,
    MailTransport.Default,
    MailRecipients.Default,
    MailSender.Default
  ],
  effect: Effect.gen(function*() {
    const queue = yield* MailQueueRepo
    const outbox = yield* MailOutbox
    const transport = yield* MailTransport
    const recipients = yield* MailRecipients
    const sender = yield* MailSender
    const smtpUrl = Option.map((yield* AppConfig).smtpUrl, Redacted.value)

    const status = Effect.fn("MailAdmin.status")(function*() {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const [counts, accountMail, lastSent, [failure]] = yield* Effect.all([
        queue.counts(tenant.id),
        outbox.counts,
        queue.lastSentAt(tenant.id),
        queue.lastFailure(tenant.id)
      ])
      return {
        transport: transport.kind,
        from: transport.from,
        queue: {
          pending: counts.pending + accountMail.pending,
          sent: counts.sent + accountMail.sent,
          failed: counts.failed + accountMail.failed
        },
        account_mail: accountMail,
        last_sent_at: lastSent === null ? null : DateTime.unsafeFromDate(lastSent),
        // Account mails keep no error (identity's outbox has no column for it): the notification queue's is the last.
        last_error: failure?.last_error ?? null,
        last_failure: failure === undefined ? null : {
          id: failure.id,
          status: failure.status,
          attempts: failure.attempts,
          error: failure.last_error,
          retry_at: failure.status === "pending" ? DateTime.unsafeFromDate(failure.next_attempt_at) : null
        }
      } satisfies MailStatus
    }, requireTenantAdmin)

    /** Sends at once, outside the queue, and answers what the transport said (a failure is an answer too). */
    const test = Effect.fn("MailAdmin.test")(function*(input: TestMailInput) {
      const actor = yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const admin = (yield* recipients.members([actor.userId])).get(actor.userId)
      const to = input.to ?? admin?.email
      if (to === undefined) return yield* ValidationFailed.field("to", "give the address to send the test to")
      const own = admin !== undefined && admin.email.toLowerCase() === to.toLowerCase()
      const base = admin === undefined
        ? {
          to,
          language: languageFor(null, tenant.settings.default_language),
          community: tenant.name,
          name: null,
          unsubscribeUrl: null
        }
        : sender.recipientOf(tenant, admin, "all")
      // Only the admin's own address gets their unsubscribe link; another address is not theirs to unsubscribe.
      const recipient = { ...base, to, name: own ? base.name : null, unsubscribeUrl: own ? base.unsubscribeUrl : null }
      const adminName = admin?.firstName ?? "An admin"
      const result = yield* Effect.either(transport.send(testMail(recipient, adminName, transport.kind)))
      return Either.match(result, {
        onRight: (sent): TestMailResult => ({
          ok: true,
          sent: true,
          to,
          transport: transport.kind,
          message_id: sent.messageId,
          detail: sent.detail
        }),
        onLeft: (failed): TestMailResult => ({
          ok: false,
          sent: false,
          to,
          transport: transport.kind,
          message_id: null,
          detail: failed.reason,
          error: failed.reason
        })
      })
    }, requireTenantAdmin)

    /** A refused connection is an answer too: 200 with `ok: false` and the error. */
    const testProvider = Effect.fn("MailAdmin.testProvider")(function*() {
      yield* TenantAdmin
      return yield* checkProvider(smtpUrl, transport.folder)
    }, requireTenantAdmin)

    return { status, test, testProvider } as const
  })
}) {}
