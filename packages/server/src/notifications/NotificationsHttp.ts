import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { InboxService } from "./InboxService.js"
import { SettingsService } from "./SettingsService.js"

export const NotificationsHttpLive = HttpApiBuilder.group(Api, "notifications", (handlers) =>
  Effect.gen(function*() {
    const inbox = yield* InboxService
    return handlers
      .handle("list", ({ urlParams }) => inbox.list(urlParams))
      .handle("grouped", () => Effect.map(inbox.grouped(), ok))
      .handle("counts", () => Effect.map(inbox.counts, ok))
      .handle("readAll", () => Effect.map(inbox.readAll, ok))
      .handle("readGroup", ({ payload }) => Effect.map(inbox.readGroup(payload.group_key), ok))
      .handle("deleteCategory", ({ urlParams }) => Effect.map(inbox.removeCategory(urlParams.category), ok))
      .handle("get", ({ path }) => Effect.map(inbox.get(path.id), ok))
      .handle("read", ({ path }) => Effect.map(inbox.read(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(inbox.remove(path.id), ok))
  }))

export const NotificationSettingsHttpLive = HttpApiBuilder.group(
  Api,
  "notificationSettings",
  (handlers) =>
    Effect.gen(function*() {
      const settings = yield* SettingsService
      return handlers
        .handle("settings", () => Effect.map(settings.settings, ok))
        .handle("saveSetting", ({ payload }) => Effect.map(settings.saveSetting(payload), ok))
        .handle("mute", ({ path }) => Effect.map(settings.mute(path.id), ok))
        .handle("unmute", ({ path }) => Effect.map(settings.unmute(path.id), ok))
        .handle("muted", () => Effect.map(settings.muted(), ok))
    })
)
