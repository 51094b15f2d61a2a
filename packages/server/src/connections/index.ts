import { Layer } from "effect"
import { ConnectionsHttpLive } from "./ConnectionsHttp.js"
import { ConnectionsService } from "./ConnectionsService.js"

export * from "./ConnectionsService.js"

/** Connections between members: requests, answers and lists (decisions D14, D14a). */
export const ConnectionsLive = ConnectionsHttpLive.pipe(Layer.provide(ConnectionsService.Default))
