import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ConnectionsService } from "./ConnectionsService.js"

export const ConnectionsHttpLive = HttpApiBuilder.group(Api, "connections", (handlers) =>
  Effect.gen(function*() {
    const connections = yield* ConnectionsService
    return handlers
      .handle("list", ({ urlParams }) => connections.list(urlParams))
      .handle("request", ({ payload }) => Effect.map(connections.request(payload), ok))
      .handle("accept", ({ path }) => Effect.map(connections.accept(path.id), ok))
      .handle("decline", ({ path }) => Effect.map(connections.decline(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(connections.remove(path.id), ok))
  }))
