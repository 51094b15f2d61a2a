import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"
import { CLAIM_LEASE_MS, type DigestFrequency, DUE_GRACE_MS, EXPIRE_AFTER_MS, PURGE_AFTER_MS } from "./MailSchedule.js"

/** A queue row claimed for sending. */
export const QueuedMail = Schema.Struct({
  id: DbInt,
  tenant_id: DbInt,
  user_id: DbInt,
  activity_type: Schema.String,
  subject: Schema.String,
  email_body: Schema.String,
  link: Schema.NullOr(Schema.String),
  attempts: DbInt
})
export type QueuedMail = typeof QueuedMail.Type

const COLUMNS = "id, tenant_id, user_id, activity_type, subject, email_body, link, attempts"

/** One community's rows, at most `limit` per statement (a job's run); without it, every community's at once. */
export interface QueueScope {
  readonly tenantId: number
  readonly limit: number
}
const claimed = decodeRows(QueuedMail)

const Counts = Schema.Struct({ pending: DbInt, sent: DbInt, failed: DbInt })
const LastFailure = Schema.Struct({
  id: DbInt,
  status: Schema.Literal("pending", "failed"),
  attempts: DbInt,
  last_error: Schema.String,
  next_attempt_at: DbDate
})

/**
 * The SQL of the notification e-mail queue. Sending runs outside any request, over all communities: claims and
 * state changes are cross-tenant by design (they name rows by id); the admin's counts are per community.
 *
 * A claim moves `next_attempt_at` past a lease and counts the attempt, in one statement over rows locked with
 * `SKIP LOCKED`: two runners never claim the same row, and a runner that dies leaves it to be taken again later.
 */
export class MailQueueRepo extends Effect.Service<MailQueueRepo>()("MailQueueRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lease = (now: Date) => new Date(now.getTime() + CLAIM_LEASE_MS)
    const ofTenant = (tenantId: number | undefined) => tenantId === undefined ? sql`` : sql`AND tenant_id = ${tenantId}`
    const limitOf = (scope: QueueScope | undefined) => scope === undefined ? sql`` : sql`LIMIT ${scope.limit}`

    return {
      claimInstant: (now: Date, limit: number, tenantId?: number) =>
        sql`
          UPDATE notification_email_queue q SET attempts = q.attempts + 1, next_attempt_at = ${lease(now)}
          WHERE q.id IN (
            SELECT id FROM notification_email_queue
            WHERE status = 'pending' AND frequency = 'instant' AND next_attempt_at <= ${now} ${ofTenant(tenantId)}
            ORDER BY next_attempt_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING ${sql.literal(COLUMNS)}`.pipe(claimed, dieOnSqlError),

      /** Communities with rows of `frequency` waiting for a digest. */
      digestTenants: (frequency: DigestFrequency, now: Date) =>
        sql`
          SELECT DISTINCT tenant_id FROM notification_email_queue
          WHERE status = 'pending' AND frequency = ${frequency} AND next_attempt_at <= ${now}`.pipe(
          decodeRows(Schema.Struct({ tenant_id: DbInt })),
          Effect.map((rows) => rows.map((r) => r.tenant_id)),
          dieOnSqlError
        ),

      /**
       * The pending rows of `frequency` queued before the digest time `dueBefore`, of up to `members` members of the
       * community, claimed: all rows of a member together, so that one digest carries them all.
       */
      claimDigest: (tenantId: number, frequency: DigestFrequency, dueBefore: Date, now: Date, members: number) =>
        sql`
          UPDATE notification_email_queue q SET attempts = q.attempts + 1, next_attempt_at = ${lease(now)}
          WHERE q.id IN (
            SELECT id FROM notification_email_queue
            WHERE tenant_id = ${tenantId} AND status = 'pending' AND frequency = ${frequency}
              AND created_at < ${dueBefore} AND next_attempt_at <= ${now}
              AND user_id IN (
                SELECT DISTINCT user_id FROM notification_email_queue
                WHERE tenant_id = ${tenantId} AND status = 'pending' AND frequency = ${frequency}
                  AND created_at < ${dueBefore} AND next_attempt_at <= ${now}
                ORDER BY user_id LIMIT ${members})
            FOR UPDATE SKIP LOCKED)
          RETURNING ${sql.literal(COLUMNS)}`.pipe(claimed, dieOnSqlError),

      markSent: (ids: ReadonlyArray<number>, now: Date) =>
        sql`UPDATE notification_email_queue SET status = 'sent', sent_at = ${now}, last_error = NULL
          WHERE id = ANY(${pgArray(ids)}::bigint[]) AND status = 'pending'`.pipe(Effect.asVoid, dieOnSqlError),

      /** The send failed: tried again at `retryAt`. */
      markRetry: (ids: ReadonlyArray<number>, error: string, retryAt: Date) =>
        sql`UPDATE notification_email_queue SET last_error = ${error}, next_attempt_at = ${retryAt}
          WHERE id = ANY(${pgArray(ids)}::bigint[]) AND status = 'pending'`.pipe(Effect.asVoid, dieOnSqlError),

      /** Never to be sent (the member cannot be reached or turned the mail off). */
      markFailed: (ids: ReadonlyArray<number>, reason: string) =>
        sql`UPDATE notification_email_queue SET status = 'failed', last_error = ${reason}
          WHERE id = ANY(${pgArray(ids)}::bigint[]) AND status = 'pending'`.pipe(Effect.asVoid, dieOnSqlError),

      /** A member's pending digest rows, when they turn digests off. */
      dropDigests: (tenantId: number, userId: number, reason: string) =>
        sql`UPDATE notification_email_queue SET status = 'failed', last_error = ${reason}
          WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND status = 'pending'
            AND frequency IN ('daily', 'monthly')`.pipe(Effect.asVoid, dieOnSqlError),

      /** Pending rows 7 days past when they were due become `failed`. */
      expire: (now: Date, scope?: QueueScope) =>
        sql`
          UPDATE notification_email_queue SET status = 'failed',
            last_error = COALESCE(last_error || ' ', '') || '(expired after 7 days)'
          WHERE status = 'pending' AND id IN (
            SELECT id FROM notification_email_queue
            WHERE status = 'pending' ${ofTenant(scope?.tenantId)} AND (
              (frequency = 'instant' AND created_at < ${new Date(now.getTime() - EXPIRE_AFTER_MS)}) OR
              (frequency = 'daily' AND created_at < ${new Date(now.getTime() - EXPIRE_AFTER_MS - DUE_GRACE_MS.daily)})
              OR (frequency = 'monthly'
                AND created_at < ${new Date(now.getTime() - EXPIRE_AFTER_MS - DUE_GRACE_MS.monthly)}))
            ${limitOf(scope)})
          RETURNING id`.pipe(Effect.map((rows) => rows.length), dieOnSqlError),

      /** Sent and failed rows older than 30 days are deleted. */
      purge: (now: Date, scope?: QueueScope) =>
        sql`DELETE FROM notification_email_queue
          WHERE id IN (
            SELECT id FROM notification_email_queue
            WHERE status IN ('sent', 'failed') AND created_at < ${new Date(now.getTime() - PURGE_AFTER_MS)}
              ${ofTenant(scope?.tenantId)}
            ${limitOf(scope)})
          RETURNING id`.pipe(Effect.map((rows) => rows.length), dieOnSqlError),

      counts: (tenantId: number) =>
        sql`
          SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
                 count(*) FILTER (WHERE status = 'sent') AS sent,
                 count(*) FILTER (WHERE status = 'failed') AS failed
          FROM notification_email_queue WHERE tenant_id = ${tenantId}`.pipe(decodeSingle(Counts), dieOnSqlError),

      lastSentAt: (tenantId: number) =>
        sql`SELECT max(sent_at) AS at FROM notification_email_queue WHERE tenant_id = ${tenantId}`.pipe(
          decodeSingle(Schema.Struct({ at: Schema.NullOr(DbDate) })),
          Effect.map((row) => row.at),
          dieOnSqlError
        ),

      /** The community's most recent row whose send failed (by its last attempt). */
      lastFailure: (tenantId: number) =>
        sql`
          SELECT id, status, attempts, last_error, next_attempt_at FROM notification_email_queue
          WHERE tenant_id = ${tenantId} AND status <> 'sent' AND last_error IS NOT NULL
          ORDER BY next_attempt_at DESC, id DESC LIMIT 1`.pipe(decodeRows(LastFailure), dieOnSqlError)
    } as const
  })
}) {}
