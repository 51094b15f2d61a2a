import { Layer } from "effect"
import { PushHttpLive } from "./PushHttp.js"
import { PushService } from "./PushService.js"

export * from "./PushConfig.js"
export * from "./PushFanout.js"
export * from "./PushMessage.js"
export * from "./PushService.js"
export { generateVapidKeys } from "./WebPushSender.js"

/** Push subscriptions over HTTP (decisions D9, D12). */
export const PushLive = PushHttpLive.pipe(Layer.provide(PushService.Default))
