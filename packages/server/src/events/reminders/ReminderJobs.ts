import { Effect, Layer } from "effect"
import { registerJobs } from "../../platform/JobRegistry.js"
import { ReminderDelivery } from "./ReminderDelivery.js"

/**
 * Reminder delivery as the scheduler's `reminders.deliver` job (decisions D17 "Jobs"): every minute, per community.
 * Its items are the deliveries finished (sent, failed or cancelled); the row claims keep two runs at once from
 * delivering anything twice.
 */
export const ReminderJobsLive = registerJobs(Effect.map(ReminderDelivery, (delivery) => [{
  id: "reminders.deliver",
  description: "Delivers the due event reminders: members' own and the automatic 24 h and 1 h ones",
  schedule: "* * * * *",
  run: ({ at, tenantId }) =>
    Effect.map(delivery.deliverFor(tenantId, at), (report) => report.sent + report.failed + report.cancelled)
}])).pipe(Layer.provide(ReminderDelivery.Default))
