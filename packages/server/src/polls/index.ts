import { Layer } from "effect"
import { PollsHttpLive } from "./PollsHttp.js"
import { PollsService } from "./PollsService.js"

export * from "./PollRepo.js"
export * from "./PollsService.js"

/** Polls: create, read and vote (decisions D8); events attach them through PollsService. */
export const PollsLive = PollsHttpLive.pipe(Layer.provide(PollsService.Default))
