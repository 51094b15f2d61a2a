import { Layer } from "effect"
import { MessagesHttpLive } from "./MessagesHttp.js"
import { MessagesService } from "./MessagesService.js"

export * from "./MessageDirectory.js"
export * from "./MessagesService.js"

/** Direct messages between members: send, conversations, a thread, mark read (decisions D14). */
export const MessagingLive = MessagesHttpLive.pipe(Layer.provide(MessagesService.Default))
