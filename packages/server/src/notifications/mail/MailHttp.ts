import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { MailAdminService } from "./MailAdminService.js"
import { UnsubscribeService } from "./UnsubscribeService.js"

export const UnsubscribeHttpLive = HttpApiBuilder.group(
  Api,
  "notificationsUnsubscribe",
  (handlers) =>
    Effect.gen(function*() {
      const unsubscribe = yield* UnsubscribeService
      return handlers
        .handle("page", ({ urlParams }) => unsubscribe.page(urlParams.token))
        .handle("apply", ({ urlParams }) => Effect.map(unsubscribe.apply(urlParams.token), ok))
    })
)

export const AdminEmailHttpLive = HttpApiBuilder.group(Api, "adminEmail", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* MailAdminService
    return handlers
      .handle("status", () => Effect.map(admin.status(), ok))
      .handle("test", ({ payload }) => Effect.map(admin.test(payload), ok))
      .handle("testProvider", () => Effect.map(admin.testProvider(), ok))
  }))
