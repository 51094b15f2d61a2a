import { Layer } from "effect"
import { InboxService } from "./InboxService.js"
import { MailHttpLive, MailSchedulerLive } from "./mail/index.js"
import { dispatchDependencies, NotificationDispatchLive } from "./NotificationDispatch.js"
import { NotificationSettingsHttpLive, NotificationsHttpLive } from "./NotificationsHttp.js"
import { PushFanoutLive, PushLive } from "./push/index.js"
import { SettingsService } from "./SettingsService.js"

export * from "./BellRepo.js"
export * from "./BellViews.js"
export * from "./Dispatcher.js"
export * from "./FreshBells.js"
export * from "./mail/index.js"
export { dispatchBatch, dispatchDependencies } from "./NotificationDispatch.js"
export * from "./NotificationTypes.js"
export * from "./push/index.js"
export * from "./realtime/index.js"

/**
 * The HTTP groups: the bell inbox, frequency settings and mutes, push subscriptions, unsubscribe and the admin's
 * e-mail routes (decisions D9, D12). The realtime socket is a raw route (`RealtimeLive`, in the HTTP app).
 */
export const NotificationsLive = Layer.mergeAll(
  NotificationsHttpLive,
  NotificationSettingsHttpLive,
  PushLive,
  MailHttpLive
).pipe(
  Layer.provide(InboxService.Default),
  Layer.provide(SettingsService.Default)
)

/**
 * What runs on the cluster: the dispatch subscriber and the mail schedules (one runner at a time each), and push,
 * which follows the bells this runner's dispatch publishes (dispatch rule 4). Needs `FreshBells` from the process's
 * shared services, so the channels that follow a bell (realtime, push) see the same batches.
 */
export const NotificationsClusterLive = Layer.mergeAll(
  // The services the rules read (`dispatchDependencies`: one line per feature in NotificationDispatch.ts).
  NotificationDispatchLive.pipe(Layer.provide(Layer.mergeAll(...dispatchDependencies))),
  MailSchedulerLive,
  PushFanoutLive
)
