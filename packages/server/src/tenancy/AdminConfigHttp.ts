import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin } from "../platform/Policy.js"
import { AdminConfigService } from "./AdminConfigService.js"

export const AdminConfigHttpLive = HttpApiBuilder.group(Api, "adminConfig", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AdminConfigService
    return handlers
      .handle("setFeature", ({ payload }) => requireTenantAdmin(Effect.map(config.setFeatures(payload), ok)))
      .handle("setModules", ({ payload }) => requireTenantAdmin(Effect.map(config.setModules(payload), ok)))
      .handle("settings", () => requireTenantAdmin(Effect.map(config.settings, ok)))
      .handle("updateSettings", ({ payload }) => requireTenantAdmin(Effect.map(config.updateSettings(payload), ok)))
  }))
