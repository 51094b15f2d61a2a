import { CurrentTenant, type Tenant, type UnsubscribeKind } from "@timebank/domain"
import { Cause, Config, Duration, Effect, Either, Option } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { languageFor } from "../messages/Messages.js"
import { type EmailPreference, NOTIFICATION_TYPES, type NotificationType } from "../NotificationTypes.js"
import { MailQueueRepo, type QueuedMail, type QueueScope } from "./MailQueueRepo.js"
import { type MailMember, MailRecipients } from "./MailRecipients.js"
import { type DigestFrequency, latestDigestTime, retryDelayMs } from "./MailSchedule.js"
import { digestMail, notificationMail, type Recipient } from "./MailTemplates.js"
import { MailTransport, type OutgoingMail } from "./MailTransport.js"
import { UnsubscribeTokens } from "./UnsubscribeTokens.js"

export type SendReport = {
  sent: number
  retried: number
  failed: number
}

const emptyReport = (): SendReport => ({ sent: 0, retried: 0, failed: 0 })

const INSTANT_BATCH = 50
const INSTANT_BATCHES_PER_ROUND = 40
const DIGEST_MEMBERS_BATCH = 200
const PURGE_BATCH = 1_000
const SEND_CONCURRENCY = 8

const preferenceOf = (activityType: string): EmailPreference | undefined =>
  (NOTIFICATION_TYPES as Readonly<Record<string, NotificationType | undefined>>)[activityType]?.emailPreference

const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => number): Map<number, Array<A>> => {
  const groups = new Map<number, Array<A>>()
  for (const item of items) {
    const group = groups.get(key(item))
    if (group === undefined) groups.set(key(item), [item])
    else group.push(item)
  }
  return groups
}

/**
 * Sends the notification e-mail queue (spec "Notification email queue", decisions D12): instant rows within seconds,
 * daily and monthly digests at their local times, one mail per member; retries with backoff; expiry and purge.
 * Every method takes `now`, so the scheduler and the tests run the same jobs with their own clocks.
 *
 * A failed send only reschedules the rows of that one mail: the other recipients of the batch are sent regardless.
 * Members who turned e-mail off (`email_enabled`, or the type's own switch since the row was queued) and members
 * who cannot be reached any more have their rows marked `failed` with the reason.
 */
export class MailSender extends Effect.Service<MailSender>()("MailSender", {
  dependencies: [
    MailQueueRepo.Default,
    MailTransport.Default,
    MailRecipients.Default,
    TenantDirectory.Default,
    UnsubscribeTokens.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* MailQueueRepo
    const transport = yield* MailTransport
    const recipients = yield* MailRecipients
    const tenants = yield* TenantDirectory
    const tokens = yield* UnsubscribeTokens
    const { publicUrl } = yield* AppConfig
    const retryBase = yield* Config.duration("MAIL_RETRY_BASE").pipe(
      Config.withDefault(Duration.seconds(30)),
      Effect.orDie
    )
    const retryBaseMs = Duration.toMillis(retryBase)

    const unsubscribeUrl = (tenantId: number, userId: number, kind: UnsubscribeKind) =>
      `${publicUrl.replace(/\/+$/, "")}/api/v2/notifications/unsubscribe?token=${
        encodeURIComponent(tokens.sign({ u: userId, t: tenantId, k: kind }))
      }`

    const recipientOf = (tenant: Tenant, member: MailMember, kind: UnsubscribeKind): Recipient => ({
      to: member.email,
      language: languageFor(member.language, tenant.settings.default_language),
      community: tenant.name,
      name: member.firstName,
      unsubscribeUrl: unsubscribeUrl(tenant.id, member.userId, kind)
    })

    /** Rows the member no longer wants by e-mail (a switch turned off after they were queued) are failed. */
    const wanted = (rows: ReadonlyArray<QueuedMail>, member: MailMember, report: SendReport) =>
      Effect.gen(function*() {
        const keep: Array<QueuedMail> = []
        for (const row of rows) {
          const preference = preferenceOf(row.activity_type)
          if (preference !== undefined && !member.preferences[preference]) {
            yield* repo.markFailed([row.id], `member turned off ${preference}`)
            report.failed++
          } else keep.push(row)
        }
        return keep
      })

    /** One mail carrying `rows` to `member`: sent, rescheduled or given up, the rows marked accordingly. */
    const deliver = (
      rows: ReadonlyArray<QueuedMail>,
      member: MailMember | undefined,
      build: (member: MailMember, rows: ReadonlyArray<QueuedMail>) => OutgoingMail,
      now: Date,
      report: SendReport
    ) =>
      Effect.gen(function*() {
        if (member === undefined) {
          yield* repo.markFailed(rows.map((r) => r.id), "recipient cannot be reached")
          report.failed += rows.length
          return
        }
        if (!member.preferences.email_enabled) {
          yield* repo.markFailed(rows.map((r) => r.id), "member turned e-mail off")
          report.failed += rows.length
          return
        }
        const keep = yield* wanted(rows, member, report)
        if (keep.length === 0) return
        const ids = keep.map((r) => r.id)
        const result = yield* Effect.either(transport.send(build(member, keep)))
        if (Either.isRight(result)) {
          yield* repo.markSent(ids, now)
          report.sent += keep.length
        } else {
          const attempts = Math.max(...keep.map((r) => r.attempts))
          yield* repo.markRetry(ids, result.left.reason, new Date(now.getTime() + retryDelayMs(attempts, retryBaseMs)))
          yield* Effect.logWarning("mail send failed").pipe(
            Effect.annotateLogs({ queue_ids: ids.join(","), attempts, reason: result.left.reason })
          )
          report.retried += keep.length
        }
      }).pipe(
        // A defect (the database) leaves the rows claimed: the lease hands them to a later run.
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("mail delivery failed", cause)
        )
      )

    /** The community of some rows: gone → failed; suspended → retried later (they expire if it stays so). */
    const tenantFor = (tenantId: number, rows: ReadonlyArray<QueuedMail>, now: Date, report: SendReport) =>
      Effect.gen(function*() {
        const tenant = yield* tenants.findById(tenantId)
        const ids = rows.map((r) => r.id)
        if (Option.isNone(tenant)) {
          yield* repo.markFailed(ids, "community not found")
          report.failed += ids.length
          return Option.none<Tenant>()
        }
        if (tenant.value.status !== "active") {
          yield* repo.markRetry(ids, "community suspended", new Date(now.getTime() + 3_600_000))
          report.retried += ids.length
          return Option.none<Tenant>()
        }
        return tenant
      })

    /** Sends each member's group of rows from one community, a few mails at a time. */
    const sendGroups = (
      tenant: Tenant,
      rows: ReadonlyArray<QueuedMail>,
      build: (tenant: Tenant) => (member: MailMember, rows: ReadonlyArray<QueuedMail>) => OutgoingMail,
      now: Date,
      report: SendReport
    ) =>
      Effect.gen(function*() {
        const byMember = groupBy(rows, (r) => r.user_id)
        const members = yield* recipients.members([...byMember.keys()])
        yield* Effect.forEach(
          byMember,
          ([userId, group]) => deliver(group, members.get(userId), build(tenant), now, report),
          { concurrency: SEND_CONCURRENCY, discard: true }
        )
      }).pipe(Effect.provideService(CurrentTenant, tenant))

    const instantMail = (tenant: Tenant) => (member: MailMember, rows: ReadonlyArray<QueuedMail>) => {
      const row = rows[0]!
      return notificationMail(recipientOf(tenant, member, preferenceOf(row.activity_type) ?? "all"), row, publicUrl)
    }

    const digestOf =
      (frequency: DigestFrequency) => (tenant: Tenant) => (member: MailMember, rows: ReadonlyArray<QueuedMail>) =>
        digestMail(recipientOf(tenant, member, "digest"), frequency, rows, publicUrl)

    /**
     * One round of instant mail: the due rows, claimed a batch at a time, each its own mail. A full batch is followed
     * by the next at once (a cancelled event's thousands of mails go within seconds, not a batch per poll), up to
     * {@link INSTANT_BATCHES_PER_ROUND} batches so account mail gets its turn. Only `tenantId`'s rows when given
     * (the `email.send` job's run).
     */
    const sendInstant = (now: Date, tenantId?: number) =>
      Effect.gen(function*() {
        const report = emptyReport()
        for (let batch = 0; batch < INSTANT_BATCHES_PER_ROUND; batch++) {
          const claimed = yield* sendInstantBatch(now, report, tenantId)
          if (claimed < INSTANT_BATCH) break
        }
        return report
      }).pipe(Effect.withSpan("Mail.sendInstant"))

    const sendInstantBatch = (now: Date, report: SendReport, tenantId: number | undefined) =>
      Effect.gen(function*() {
        const rows = yield* repo.claimInstant(now, INSTANT_BATCH, tenantId)
        for (const [tenantId, group] of groupBy(rows, (r) => r.tenant_id)) {
          const tenant = yield* tenantFor(tenantId, group, now, report)
          if (Option.isNone(tenant)) continue
          // Each row is a mail of its own, even when a member has several.
          yield* Effect.forEach(
            groupBy(group, (r) => r.id).values(),
            (one) => sendGroups(tenant.value, one, instantMail, now, report),
            { concurrency: SEND_CONCURRENCY, discard: true }
          )
        }
        return rows.length
      })

    /**
     * One community's digests of `frequency` due at `now` (the `email.digest.*` jobs): the rows of each member queued
     * before the community's latest digest time (08:00 daily, the 1st at 17:00 monthly, local time) go as one mail.
     * Rows queued after it wait for the next one; a missed digest time (no runner at 08:00) is caught up on the next
     * run. Nothing goes while the community is gone, suspended, or has its `digests` module off.
     */
    const digestFor = (frequency: DigestFrequency, tenantId: number, now: Date, report = emptyReport()) =>
      Effect.gen(function*() {
        const found = yield* tenants.findById(tenantId)
        if (Option.isNone(found) || found.value.status !== "active" || !found.value.isModuleOn("digests")) {
          return report
        }
        const tenant = found.value
        const dueBefore = latestDigestTime(frequency, tenant.timezone, now)
        for (;;) {
          const rows = yield* repo.claimDigest(tenant.id, frequency, dueBefore, now, DIGEST_MEMBERS_BATCH)
          if (rows.length === 0) break
          yield* sendGroups(tenant, rows, digestOf(frequency), now, report)
        }
        return report
      }).pipe(Effect.withSpan("Mail.digestFor", { attributes: { frequency } }))

    /** The digests due at `now` of every community with waiting rows. */
    const runDigests = (now: Date) =>
      Effect.gen(function*() {
        const report = emptyReport()
        for (const frequency of ["daily", "monthly"] as const) {
          for (const tenantId of yield* repo.digestTenants(frequency, now)) {
            yield* digestFor(frequency, tenantId, now, report)
          }
        }
        return report
      }).pipe(Effect.withSpan("Mail.runDigests"))

    /**
     * Pending rows past 7 days become `failed`; sent and failed rows past 30 days are deleted. Of every community at
     * once, or of `tenantId`'s a bounded batch at a time (the `email.purge` job's run).
     */
    const expireAndPurge = (now: Date, tenantId?: number) =>
      tenantId === undefined
        ? Effect.all({ expired: repo.expire(now), purged: repo.purge(now) }).pipe(
          Effect.withSpan("Mail.expireAndPurge")
        )
        : Effect.all({
          expired: inBatches((scope) => repo.expire(now, scope), tenantId),
          purged: inBatches((scope) => repo.purge(now, scope), tenantId)
        }).pipe(Effect.withSpan("Mail.expireAndPurge", { attributes: { tenant_id: tenantId } }))

    /** Repeats a statement over one community's rows, {@link PURGE_BATCH} at a time, until a batch is not full. */
    const inBatches = (statement: (scope: QueueScope) => Effect.Effect<number>, tenantId: number) =>
      Effect.gen(function*() {
        let total = 0
        for (;;) {
          const n = yield* statement({ tenantId, limit: PURGE_BATCH })
          total += n
          if (n < PURGE_BATCH) return total
        }
      })

    return { sendInstant, digestFor, runDigests, expireAndPurge, unsubscribeUrl, recipientOf } as const
  })
}) {}
