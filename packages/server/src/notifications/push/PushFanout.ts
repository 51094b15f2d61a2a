import { CurrentTenant } from "@timebank/domain"
import { Cause, Effect, Layer, Option, Queue } from "effect"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { type FreshBellBatch, FreshBells } from "../FreshBells.js"
import { ApnsSender } from "./ApnsSender.js"
import { FcmSender } from "./FcmSender.js"
import { PushConfig } from "./PushConfig.js"
import { PushFanoutRepo, type PushRow } from "./PushFanoutRepo.js"
import type { PushMessage, PushTarget } from "./PushMessage.js"
import { PushSubscriptionRepo } from "./PushSubscriptionRepo.js"
import type { SendOutcome } from "./PushTransport.js"
import { WebPushSender } from "./WebPushSender.js"

/** What one batch did, per device. */
export interface FanoutReport {
  readonly sent: number
  readonly gone: number
  readonly failed: number
  readonly skipped: number
}

const messageOf = (row: PushRow): PushMessage => ({
  title: row.title,
  body: row.message,
  link: row.link,
  type: row.type,
  notification_id: row.notification_id
})

const targetOf = (row: PushRow): PushTarget => ({
  subscriptionId: row.subscription_id,
  kind: row.kind,
  endpoint: row.endpoint,
  p256dh: row.p256dh,
  auth: row.auth
})

/**
 * Push after a fresh bell (dispatch rule 4): claims the batch's pushes in one query, then sends web and mobile in
 * parallel, each device on its own — a failing device or channel is logged and never stops the others; a device the
 * push service no longer knows (404/410) is deleted.
 */
export class PushFanout extends Effect.Service<PushFanout>()("PushFanout", {
  dependencies: [
    PushConfig.Default,
    PushFanoutRepo.Default,
    PushSubscriptionRepo.Default,
    WebPushSender.Default,
    FcmSender.Default,
    ApnsSender.Default,
    TenantDirectory.Default
  ],
  effect: Effect.gen(function*() {
    const { concurrency } = yield* PushConfig
    const repo = yield* PushFanoutRepo
    const subscriptions = yield* PushSubscriptionRepo
    const web = yield* WebPushSender
    const fcm = yield* FcmSender
    const apns = yield* ApnsSender
    const tenants = yield* TenantDirectory

    const senderOf = (kind: PushRow["kind"]) => (kind === "web" ? web : kind === "fcm" ? fcm : apns)

    const sendOne = (row: PushRow) =>
      senderOf(row.kind).send(targetOf(row), messageOf(row)).pipe(
        Effect.tap((outcome) => outcome === "gone" ? subscriptions.deleteById(row.subscription_id) : Effect.void),
        Effect.catchAll((error): Effect.Effect<SendOutcome | "failed"> =>
          Effect.as(Effect.logWarning("push not delivered", error.message), "failed" as const)
        ),
        Effect.catchAllDefect((defect) => Effect.as(Effect.logError("push send failed", defect), "failed" as const)),
        Effect.annotateLogs({ channel: row.kind, subscription_id: row.subscription_id, user_id: row.user_id })
      )

    const channel = (rows: ReadonlyArray<PushRow>) => Effect.forEach(rows, sendOne, { concurrency })

    /** Pushes one batch of bells of one community; the report counts devices. */
    const deliver = (batch: FreshBellBatch) =>
      Effect.gen(function*() {
        const report = { sent: 0, gone: 0, failed: 0, skipped: 0 }
        const tenant = yield* tenants.findById(batch.tenantId)
        // A community with the `push` module off (decisions D17) gets no pushes; its bells stay in the inbox.
        if (Option.isNone(tenant) || !tenant.value.isModuleOn("push")) return report as FanoutReport
        const rows = yield* repo.claim(batch.notificationIds, batch.userIds).pipe(
          Effect.provideService(CurrentTenant, tenant.value)
        )
        const [webRows, mobileRows] = [rows.filter((r) => r.kind === "web"), rows.filter((r) => r.kind !== "web")]
        const outcomes = yield* Effect.all([channel(webRows), channel(mobileRows)], { concurrency: 2 }).pipe(
          Effect.provideService(CurrentTenant, tenant.value)
        )
        for (const outcome of outcomes.flat()) report[outcome]++
        return report as FanoutReport
      }).pipe(Effect.withSpan("Push.deliver", { attributes: { tenant_id: batch.tenantId } }))

    return { deliver } as const
  })
}) {}

const BATCHES_IN_FLIGHT = 4

/**
 * The fan-out as a background fiber of this process: takes every batch FreshBells publishes here (where the
 * dispatcher runs) and pushes it, a few batches side by side so that one slow push service does not hold up the next.
 * Needs FreshBells from the layer that builds the cluster features, so dispatcher, push and realtime share one.
 */
export const PushFanoutLive = Layer.scopedDiscard(Effect.gen(function*() {
  const fanout = yield* PushFanout
  const bells = yield* FreshBells
  const queue = yield* bells.subscribe()
  const deliverLogged = (batch: FreshBellBatch) =>
    fanout.deliver(batch).pipe(
      Effect.tap((r) =>
        r.failed + r.gone > 0
          ? Effect.logInfo("push batch delivered with failures").pipe(Effect.annotateLogs({ ...r }))
          : Effect.void
      ),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("push batch failed", cause)
      )
    )
  // Batches in flight at once; past that the loop waits, and FreshBells' sliding hub drops the oldest.
  const inFlight = yield* Effect.makeSemaphore(BATCHES_IN_FLIGHT)
  yield* Queue.take(queue).pipe(
    Effect.tap(() => inFlight.take(1)),
    Effect.flatMap((batch) => Effect.forkScoped(Effect.ensuring(deliverLogged(batch), inFlight.release(1)))),
    Effect.forever,
    Effect.forkScoped
  )
})).pipe(Layer.provide(PushFanout.Default))
