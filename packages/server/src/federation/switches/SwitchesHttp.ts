import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { SwitchesService } from "./SwitchesService.js"

const SuperFederationHttpLive = HttpApiBuilder.group(Api, "superFederation", (handlers) =>
  Effect.gen(function*() {
    const service = yield* SwitchesService
    return handlers
      .handle("platform", () => Effect.map(service.platform, ok))
      .handle("setPlatform", ({ payload }) => Effect.map(service.setPlatform(payload), ok))
      .handle("tenant", ({ path }) => Effect.map(service.tenant(path.id), ok))
      .handle("setTenant", ({ path, payload }) => Effect.map(service.setTenant(path.id, payload), ok))
  }))

const AdminFederationSettingsHttpLive = HttpApiBuilder.group(
  Api,
  "adminFederationSettings",
  (handlers) =>
    Effect.gen(function*() {
      const service = yield* SwitchesService
      return handlers
        .handle("get", () => service.settings)
        .handle("update", ({ payload }) => service.updateSettings(payload))
    })
)

/** The switches' admin routes: super-admins' platform switch and whitelist, tenant admins' toggles. */
export const SwitchesHttpLive = Layer.mergeAll(SuperFederationHttpLive, AdminFederationSettingsHttpLive).pipe(
  Layer.provide(SwitchesService.Default)
)
