import { Effect, Layer } from "effect"
import { type JobDefinition, registerJobs } from "../../platform/JobRegistry.js"
import { AccountMail } from "./AccountMail.js"
import type { DigestFrequency } from "./MailSchedule.js"
import { MailSender, type SendReport } from "./MailSender.js"

/** Rows handled: sent, rescheduled after a failed send, or given up. */
const handled = (report: SendReport) => report.sent + report.retried + report.failed

/**
 * The mail work as the scheduler's jobs (decisions D17 "Jobs"), each for one community. `email.send` runs on demand
 * only: the instant-mail singleton (`MailSchedulerLive`) keeps sending every second; the row claims keep the two from
 * sending a mail twice. The digest jobs run every minute and send only what the community's time zone makes due.
 */
export const MailJobsLive = registerJobs(Effect.gen(function*() {
  const sender = yield* MailSender
  const account = yield* AccountMail

  const digest = (frequency: DigestFrequency): JobDefinition => ({
    id: `email.digest.${frequency}`,
    description: frequency === "daily"
      ? "Sends the daily digests due (08:00 in the community's time zone)"
      : "Sends the monthly digests due (the 1st at 17:00 in the community's time zone)",
    schedule: "* * * * *",
    run: ({ at, tenantId }) => Effect.map(sender.digestFor(frequency, tenantId, at), handled)
  })

  return [
    {
      id: "email.send",
      description: "Sends the community's due instant notification mail and account mail now",
      schedule: null,
      run: ({ at, tenantId }) =>
        Effect.map(
          Effect.zip(account.sendPending(at, tenantId), sender.sendInstant(at, tenantId)),
          ([accountMail, instant]) => handled(accountMail) + handled(instant)
        )
    },
    digest("daily"),
    digest("monthly"),
    {
      id: "email.purge",
      description: "Gives up mail pending for 7 days and deletes sent and failed mail older than 30 days",
      schedule: "0 * * * *",
      run: ({ at, tenantId }) =>
        Effect.map(
          Effect.zip(sender.expireAndPurge(at, tenantId), account.expire(at, tenantId)),
          ([queue, accountMail]) => queue.expired + queue.purged + accountMail
        )
    }
  ] satisfies ReadonlyArray<JobDefinition>
})).pipe(Layer.provide(AccountMail.Default), Layer.provide(MailSender.Default))
