import { Singleton } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { CurrentTenant, type Tenant } from "@timebank/domain"
import { Cause, Clock, Config, Duration, Effect, Layer, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { pgArray } from "../platform/SqlArrays.js"
import { dieOnSqlError, TenantSql } from "../platform/TenantSql.js"
import { TenantRepo } from "../tenancy/TenantRepo.js"
import type { EventRow } from "./EventRepo.js"
import { eventSnapshot } from "./EventSnapshot.js"

const MINUTE = 60_000

/** A delivery claimed longer ago than this is taken to be lost with its runner and is released (spec "Limits"). */
export const STALE_CLAIM_MS = 60 * MINUTE

/** Deliveries claimed per kind and tick; the rest wait for the next tick. */
export const DELIVERY_BATCH = 500

export type DeliveryKind = "user" | "auto_24h" | "auto_1h"
export type AutoKind = Exclude<DeliveryKind, "user">

/**
 * The automatic reminders (spec "Limits"): events starting in [now + from, now + to). The 24 h scan is the spec's
 * 23 h 30 m – 24 h 30 m; the 1 h scan is the same one-hour window around its lead time (30–90 minutes), so that any
 * tick of up to an hour sees every event once in each window.
 */
export const AUTO_WINDOWS: ReadonlyArray<{ readonly kind: AutoKind; readonly from: number; readonly to: number }> = [
  { kind: "auto_24h", from: 23.5 * 60 * MINUTE, to: 24.5 * 60 * MINUTE },
  { kind: "auto_1h", from: 30 * MINUTE, to: 90 * MINUTE }
]

/** The lead time an automatic reminder stands for, as an offset in minutes. */
export const AUTO_OFFSET: Record<AutoKind, number> = { auto_24h: 1440, auto_1h: 60 }

/** Start times an automatic scan at `now` covers. */
export const autoWindow = (kind: AutoKind, now: Date) => {
  const window = AUTO_WINDOWS.find((w) => w.kind === kind)!
  return { from: new Date(now.getTime() + window.from), to: new Date(now.getTime() + window.to) }
}

/** What a claimed delivery's facts look like when it is finished. */
export interface DueFacts {
  readonly kind: DeliveryKind
  /** The user reminder's status now (automatic ones: null). */
  readonly reminderStatus: string | null
  /** The recipient's RSVP now (null: none). */
  readonly rsvp: string | null
  readonly eventStatus: "active" | "cancelled"
  readonly startTime: Date
  readonly eventsEnabled: boolean
}

export type DueOutcome =
  | { readonly _tag: "send" }
  /** The reminder changed after the scan (cleared or cancelled): nothing to deliver, the claim goes. */
  | { readonly _tag: "drop" }
  /** The member no longer goes nor is interested: the reminder is cancelled (spec "Reminder"). */
  | { readonly _tag: "cancel" }
  | { readonly _tag: "fail"; readonly reason: string }

/** Decides what a claimed delivery becomes. Pure, for tests. */
export const dueOutcome = (facts: DueFacts, now: Date): DueOutcome => {
  if (facts.kind === "user" && facts.reminderStatus !== "pending") return { _tag: "drop" }
  if (facts.rsvp !== "going" && facts.rsvp !== "interested") {
    return facts.kind === "user" ? { _tag: "cancel" } : { _tag: "drop" }
  }
  if (!facts.eventsEnabled) return { _tag: "fail", reason: "the community has switched events off" }
  if (facts.eventStatus === "cancelled") return { _tag: "fail", reason: "the event was cancelled" }
  if (facts.startTime.getTime() <= now.getTime()) return { _tag: "fail", reason: "the event has already started" }
  return { _tag: "send" }
}

/** What one tick did. */
export interface DeliveryReport {
  readonly released: number
  readonly sent: number
  readonly failed: number
  readonly cancelled: number
}

interface Claim {
  readonly id: string
  readonly tenant_id: string
  readonly event_id: string
  readonly user_id: string
  readonly reminder_id: string | null
  readonly kind: DeliveryKind
}

interface DueRow extends Claim {
  readonly offset_minutes: number | null
  readonly channel: string | null
  readonly reminder_status: string | null
  readonly rsvp: string | null
}

// `occurrence_date` as text: the driver would turn a date into a local-midnight Date.
const EVENT_COLUMNS = `id, tenant_id, user_id, title, description, start_time, end_time, location, latitude,
  longitude, max_attendees, is_online, online_link, video_url, allow_remote_attendance, image_url, cover_image,
  category_id, group_id, federated_visibility, members_only, status, cancel_reason, cancelled_at,
  is_recurring_template, parent_event_id, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date, series_id,
  created_at, updated_at`

const reasonOf = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return (error instanceof Error ? error.message : String(error)).slice(0, 500) || "delivery failed"
}

/**
 * Delivers due reminders (spec "Reminder", decisions D8) by writing `EventReminderDue` to the outbox — the
 * notifications feature renders and sends it. A delivery is claimed first by inserting its row in
 * `event_reminder_deliveries`, whose unique indexes (one per user reminder, one per event, kind and recipient) are
 * the idempotency record: however many runners tick at once, each (reminder, recipient) is claimed by one, and the
 * outbox row is written in the transaction that marks it sent. A runner that dies holding a claim leaves it
 * `claimed`; the claim is released after an hour and delivered then.
 *
 * It runs outside any request, over all communities: the scans are cross-tenant by design; each delivery is then
 * finished with its community as the current tenant.
 */
export class ReminderDelivery extends Effect.Service<ReminderDelivery>()("ReminderDelivery", {
  dependencies: [TenantSql.Default, Outbox.Default, TenantRepo.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const db = yield* TenantSql
    const outbox = yield* Outbox
    const tenants = yield* TenantRepo

    /** Claims older than an hour are deleted, so that the next scan claims them again. */
    const releaseStale = (now: Date) =>
      sql<{ id: string }>`DELETE FROM event_reminder_deliveries
        WHERE status = 'claimed' AND claimed_at < ${new Date(now.getTime() - STALE_CLAIM_MS)}
        RETURNING id`.pipe(Effect.map((rows) => rows.length))

    /** Pending user reminders whose time has come: claimed in one statement. */
    const claimUserReminders = (now: Date) =>
      sql<Claim>`
        INSERT INTO event_reminder_deliveries (tenant_id, event_id, user_id, reminder_id, kind, status, claimed_at)
        SELECT r.tenant_id, r.event_id, r.user_id, r.id, 'user', 'claimed', ${now}
        FROM (SELECT id, tenant_id, event_id, user_id FROM event_reminders
              WHERE status = 'pending' AND scheduled_for <= ${now}
              ORDER BY scheduled_for, id LIMIT ${DELIVERY_BATCH}) r
        ON CONFLICT (reminder_id) WHERE kind = 'user' DO NOTHING
        RETURNING id, tenant_id, event_id, user_id, reminder_id, kind`

    /** Going and interested attendees of active events starting in the kind's window: claimed in one statement. */
    const claimAutomatic = (kind: AutoKind, now: Date) => {
      const { from, to } = autoWindow(kind, now)
      return sql<Claim>`
        INSERT INTO event_reminder_deliveries (tenant_id, event_id, user_id, kind, status, claimed_at)
        SELECT a.tenant_id, a.event_id, a.user_id, ${kind}, 'claimed', ${now}
        FROM (SELECT e.tenant_id, e.id AS event_id, rs.user_id FROM events e
              JOIN event_rsvps rs ON rs.event_id = e.id AND rs.tenant_id = e.tenant_id
              WHERE e.status = 'active' AND e.start_time >= ${from} AND e.start_time < ${to}
                AND rs.status IN ('going', 'interested')
              ORDER BY e.start_time, e.id, rs.user_id LIMIT ${DELIVERY_BATCH}) a
        ON CONFLICT (event_id, kind, user_id) WHERE kind <> 'user' DO NOTHING
        RETURNING id, tenant_id, event_id, user_id, reminder_id, kind`
    }

    /** The claimed deliveries with the reminder and RSVP as they are now. */
    const dueRows = (claims: ReadonlyArray<Claim>) =>
      claims.length === 0 ? Effect.succeed([]) : sql<DueRow>`
        SELECT d.id, d.tenant_id, d.event_id, d.user_id, d.reminder_id, d.kind,
               r.offset_minutes, r.channel, r.status AS reminder_status, rs.status AS rsvp
        FROM event_reminder_deliveries d
        LEFT JOIN event_reminders r ON r.id = d.reminder_id AND r.tenant_id = d.tenant_id
        LEFT JOIN event_rsvps rs ON rs.event_id = d.event_id AND rs.user_id = d.user_id AND rs.tenant_id = d.tenant_id
        WHERE d.id = ANY(${pgArray(claims.map((c) => c.id))}::bigint[])
        ORDER BY d.id`

    const eventsOf = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed(new Map<string, EventRow>()) : sql<EventRow>`
        SELECT ${sql.literal(EVENT_COLUMNS)} FROM events WHERE id = ANY(${pgArray([...new Set(ids)])}::bigint[])`.pipe(
        Effect.map((rows) => new Map(rows.map((row) => [String(row.id), row])))
      )

    /** Finishes one claimed delivery in one transaction of its community. */
    const finish = (due: DueRow, event: EventRow | undefined, tenant: Tenant, now: Date) =>
      db.transaction(Effect.gen(function*() {
        const outcome: DueOutcome = event === undefined
          ? { _tag: "drop" }
          : dueOutcome({
            kind: due.kind,
            reminderStatus: due.reminder_status,
            rsvp: due.rsvp,
            eventStatus: event.status,
            startTime: event.start_time,
            eventsEnabled: tenant.isEnabled("events")
          }, now)
        const tenantId = tenant.id
        switch (outcome._tag) {
          case "drop":
          case "cancel": {
            yield* sql`DELETE FROM event_reminder_deliveries WHERE tenant_id = ${tenantId} AND id = ${due.id}`
            if (outcome._tag === "cancel") {
              yield* sql`UPDATE event_reminders SET status = 'cancelled', updated_at = now()
                WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id} AND status = 'pending'`
            }
            return outcome._tag
          }
          case "fail": {
            yield* markFailed(due, tenantId, outcome.reason, now)
            return "failed" as const
          }
          case "send": {
            const kind = due.kind
            yield* sql`UPDATE event_reminder_deliveries SET status = 'sent', sent_at = ${now}
              WHERE tenant_id = ${tenantId} AND id = ${due.id}`
            if (kind === "user") {
              yield* sql`UPDATE event_reminders SET status = 'sent', claimed_at = ${now}, sent_at = ${now},
                updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id}`
            }
            yield* outbox.append("EventReminderDue", {
              event_id: Number(due.event_id),
              user_id: Number(due.user_id),
              kind,
              reminder_id: due.reminder_id === null ? null : Number(due.reminder_id),
              delivery_id: Number(due.id),
              channel: kind === "user" ? due.channel : "both",
              offset_minutes: kind === "user" ? due.offset_minutes : AUTO_OFFSET[kind],
              event: eventSnapshot(event!)
            })
            return "sent" as const
          }
        }
      })).pipe(Effect.provideService(CurrentTenant, tenant))

    const markFailed = (due: DueRow, tenantId: number, reason: string, now: Date) =>
      Effect.gen(function*() {
        yield* sql`UPDATE event_reminder_deliveries SET status = 'failed', sent_at = NULL, failure_reason = ${reason}
          WHERE tenant_id = ${tenantId} AND id = ${due.id}`
        if (due.reminder_id !== null) {
          yield* sql`UPDATE event_reminders SET status = 'failed', claimed_at = ${now}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${due.reminder_id}`
        }
      })

    /** One delivery: its failure is recorded as `failed` with the reason and never stops the others. */
    const deliverOne = (due: DueRow, event: EventRow | undefined, tenant: Tenant, now: Date) =>
      finish(due, event, tenant, now).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logWarning("reminder delivery failed", cause).pipe(
              Effect.zipRight(dieOnSqlError(markFailed(due, tenant.id, reasonOf(cause), now))),
              Effect.catchAllCause((again) => Effect.logError("reminder delivery not recorded as failed", again)),
              Effect.as("failed" as const)
            )
        ),
        Effect.annotateLogs({ delivery_id: due.id, kind: due.kind, event_id: due.event_id }),
        Effect.withSpan("Reminders.deliverOne", { attributes: { kind: due.kind } })
      )

    /**
     * One tick at `now` (a parameter, so tests choose the time): releases stale claims, then claims and delivers
     * the due user reminders and the automatic 24 h and 1 h reminders.
     */
    const deliverDue = (now: Date) =>
      Effect.gen(function*() {
        const released = yield* releaseStale(now)
        const claims = [
          ...(yield* claimUserReminders(now)),
          ...(yield* claimAutomatic("auto_24h", now)),
          ...(yield* claimAutomatic("auto_1h", now))
        ]
        const due = yield* dueRows(claims)
        const events = yield* eventsOf(due.map((d) => d.event_id))
        const report = { released, sent: 0, failed: 0, cancelled: 0 }
        const byTenant = new Map<string, Array<DueRow>>()
        for (const d of due) byTenant.set(d.tenant_id, [...(byTenant.get(d.tenant_id) ?? []), d])
        for (const [tenantId, rows] of byTenant) {
          const tenant = yield* tenants.findById(Number(tenantId))
          for (const row of rows) {
            // A community that is gone cannot be told anything; its claims lapse with it.
            if (Option.isNone(tenant)) continue
            const result = yield* deliverOne(row, events.get(row.event_id), tenant.value, now)
            if (result === "sent") report.sent++
            else if (result === "failed") report.failed++
            else if (result === "cancel") report.cancelled++
          }
        }
        return report satisfies DeliveryReport
      }).pipe(dieOnSqlError, Effect.withSpan("Reminders.deliverDue"))

    return { deliverDue } as const
  })
}) {}

/**
 * Reminder delivery as a cluster singleton: one runner ticks at a time (every `REMINDER_TICK`, default one minute),
 * and the claims make even an overlapping tick during a handover deliver each reminder once.
 */
export const ReminderSchedulerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const tick = yield* Config.duration("REMINDER_TICK").pipe(Config.withDefault(Duration.minutes(1)))
  return Singleton.make(
    "events/reminders",
    Effect.gen(function*() {
      const delivery = yield* ReminderDelivery
      const once = Clock.currentTimeMillis.pipe(
        Effect.flatMap((ms) => delivery.deliverDue(new Date(ms))),
        Effect.tap((report) =>
          report.sent + report.failed + report.released + report.cancelled > 0
            ? Effect.logInfo("reminders delivered").pipe(Effect.annotateLogs({ ...report }))
            : Effect.void
        ),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("reminder tick failed", cause)
        )
      )
      yield* Effect.forever(Effect.zipRight(once, Effect.sleep(tick)))
    })
  )
})).pipe(Layer.provide(ReminderDelivery.Default))
