import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requirePlatformAdmin } from "../platform/Policy.js"
import { DEFAULT_TENANTS_PER_PAGE, SuperTenantsService } from "./SuperTenantsService.js"

export const SuperTenantsHttpLive = HttpApiBuilder.group(Api, "superTenants", (handlers) =>
  Effect.gen(function*() {
    const service = yield* SuperTenantsService
    return handlers
      .handle("create", ({ payload }) => requirePlatformAdmin(Effect.map(service.create(payload), ok)))
      .handle("list", ({ urlParams }) =>
        requirePlatformAdmin(service.list(urlParams.page ?? 1, urlParams.per_page ?? DEFAULT_TENANTS_PER_PAGE)))
      .handle("get", ({ path }) =>
        requirePlatformAdmin(Effect.map(service.get(path.id), ok)))
      .handle("update", ({ path, payload }) =>
        requirePlatformAdmin(Effect.map(service.update(path.id, payload), ok)))
  }))
