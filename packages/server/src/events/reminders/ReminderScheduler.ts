import { Singleton } from "@effect/cluster"
import { Cause, Clock, Config, Duration, Effect, Layer } from "effect"
import { ReminderDelivery } from "./ReminderDelivery.js"

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
