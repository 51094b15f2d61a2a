import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { MessagesService } from "./MessagesService.js"

export const MessagesHttpLive = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* MessagesService
    return handlers
      .handle("send", ({ payload }) => Effect.map(messages.send(payload), ok))
      .handle("conversations", ({ urlParams }) => messages.conversations(urlParams))
      .handle("thread", ({ path, urlParams }) => messages.thread(path.userId, urlParams))
      .handle("read", ({ path }) => Effect.map(messages.markRead(path.userId), ok))
  }))
