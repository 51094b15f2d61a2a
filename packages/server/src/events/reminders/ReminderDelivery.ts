import { CurrentTenant, DomainEvents, type Tenant } from "@timebank/domain"
import { Cause, Effect, Option } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { dieOnSqlError, TenantSql } from "../../platform/TenantSql.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import type { EventRow } from "../EventRow.js"
import { eventSnapshot } from "../EventSnapshot.js"
import { type DueRow, ReminderDeliveryRepo } from "./ReminderDeliveryRepo.js"
import { AUTO_OFFSET, type DeliveryReport, type DueOutcome, dueOutcome, reasonOf } from "./ReminderRules.js"

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
  dependencies: [ReminderDeliveryRepo.Default, TenantSql.Default, Outbox.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ReminderDeliveryRepo
    const db = yield* TenantSql
    const outbox = yield* Outbox
    const tenants = yield* TenantDirectory

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
        switch (outcome._tag) {
          case "drop":
          case "cancel": {
            yield* repo.drop(tenant.id, due)
            if (outcome._tag === "cancel") yield* repo.cancelReminder(tenant.id, due)
            return outcome._tag
          }
          case "fail": {
            yield* repo.markFailed(tenant.id, due, outcome.reason, now)
            return "failed" as const
          }
          case "send": {
            const kind = due.kind
            yield* repo.markSent(tenant.id, due, now)
            yield* outbox.append(
              new DomainEvents.EventReminderDue({
                event_id: due.event_id,
                user_id: due.user_id,
                kind,
                reminder_id: due.reminder_id,
                delivery_id: due.id,
                channel: kind === "user" ? due.channel : "both",
                offset_minutes: kind === "user" ? due.offset_minutes : AUTO_OFFSET[kind],
                event: eventSnapshot(event!)
              })
            )
            return "sent" as const
          }
        }
      })).pipe(Effect.provideService(CurrentTenant, tenant))

    /** One delivery: its failure is recorded as `failed` with the reason and never stops the others. */
    const deliverOne = (due: DueRow, event: EventRow | undefined, tenant: Tenant, now: Date) =>
      finish(due, event, tenant, now).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logWarning("reminder delivery failed", cause).pipe(
              Effect.zipRight(dieOnSqlError(repo.markFailed(tenant.id, due, reasonOf(cause), now))),
              Effect.catchAllCause((again) => Effect.logError("reminder delivery not recorded as failed", again)),
              Effect.as("failed" as const)
            )
        ),
        Effect.annotateLogs({ delivery_id: due.id, kind: due.kind, event_id: due.event_id }),
        Effect.withSpan("Reminders.deliverOne", { attributes: { kind: due.kind } })
      )

    /**
     * One tick at `now` (a parameter, so tests choose the time): releases stale claims, then claims and delivers
     * the due user reminders and the automatic 24 h and 1 h reminders — of `only` that community when given (the
     * `reminders.deliver` job's run), else of every community.
     */
    const deliverDue = (now: Date, only?: Tenant) =>
      Effect.gen(function*() {
        const scope = only?.id
        const released = yield* repo.releaseStale(now, scope)
        const claims = [
          ...(yield* repo.claimUserReminders(now, scope)),
          ...(yield* repo.claimAutomatic("auto_24h", now, scope)),
          ...(yield* repo.claimAutomatic("auto_1h", now, scope))
        ]
        const due = yield* repo.due(claims)
        const events = yield* repo.events(due.map((d) => d.event_id))
        const report = { released, sent: 0, failed: 0, cancelled: 0 }
        const byTenant = new Map<number, Array<DueRow>>()
        for (const d of due) {
          const rows = byTenant.get(d.tenant_id)
          if (rows === undefined) byTenant.set(d.tenant_id, [d])
          else rows.push(d)
        }
        for (const [tenantId, rows] of byTenant) {
          const tenant = only === undefined ? yield* tenants.findById(tenantId) : Option.some(only)
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

    /**
     * The `reminders.deliver` job for one community, read fresh: nothing when it is gone or its `reminders` module
     * is off (its due reminders wait, and go once the module is on again).
     */
    const deliverFor = (tenantId: number, now: Date) =>
      Effect.flatMap(
        tenants.findById(tenantId),
        (tenant) =>
          Option.isNone(tenant) || !tenant.value.isModuleOn("reminders")
            ? Effect.succeed<DeliveryReport>({ released: 0, sent: 0, failed: 0, cancelled: 0 })
            : deliverDue(now, tenant.value)
      )

    return { deliverDue, deliverFor } as const
  })
}) {}
