import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { PollsService } from "./PollsService.js"

export const PollsHttpLive = HttpApiBuilder.group(Api, "polls", (handlers) =>
  Effect.gen(function*() {
    const polls = yield* PollsService
    return handlers
      .handle("create", ({ payload }) => Effect.map(polls.create(payload), ok))
      .handle("get", ({ path }) => Effect.map(polls.get(path.id), ok))
      .handle("vote", ({ path, payload }) => Effect.map(polls.vote(path.id, payload.option_id), ok))
  }))
