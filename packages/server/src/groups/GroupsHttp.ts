import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { GroupChatService } from "./GroupChatService.js"
import { GroupMembersService } from "./GroupMembersService.js"
import { GroupsService } from "./GroupsService.js"
import { GroupTypesService } from "./GroupTypesService.js"

export const GroupsHttpLive = HttpApiBuilder.group(Api, "groups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* GroupsService
    const types = yield* GroupTypesService
    return handlers
      .handle("list", ({ urlParams }) => groups.list(urlParams))
      .handle("get", ({ path }) => Effect.map(groups.get(path.id), ok))
      .handle("create", ({ payload }) => Effect.map(groups.create(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(groups.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(groups.remove(path.id), ok))
      .handle("types", () => Effect.map(types.list(), ok))
  }))

export const GroupMembersHttpLive = HttpApiBuilder.group(Api, "groupMembers", (handlers) =>
  Effect.gen(function*() {
    const members = yield* GroupMembersService
    return handlers
      .handle("join", ({ path }) => Effect.map(members.join(path.id), ok))
      .handle("leave", ({ path }) => Effect.map(members.leave(path.id), ok))
      .handle("list", ({ path, urlParams }) => members.list(path.id, urlParams))
      .handle("update", ({ path, payload }) => Effect.map(members.update(path.id, path.userId, payload), ok))
  }))

export const GroupChatHttpLive = HttpApiBuilder.group(Api, "groupChat", (handlers) =>
  Effect.gen(function*() {
    const chat = yield* GroupChatService
    return handlers
      .handle("list", ({ path, urlParams }) => chat.list(path.id, urlParams))
      .handle("post", ({ path, payload }) => Effect.map(chat.post(path.id, payload.body), ok))
  }))
