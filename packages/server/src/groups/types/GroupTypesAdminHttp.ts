import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { GroupTypesAdminService } from "./GroupTypesAdminService.js"

const GroupTypesAdminHandlers = HttpApiBuilder.group(Api, "adminGroupTypes", (handlers) =>
  Effect.gen(function*() {
    const types = yield* GroupTypesAdminService
    return handlers
      .handle("list", ({ urlParams }) => types.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(types.create(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(types.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(types.remove(path.id), ok))
      .handle("policies", ({ path }) => Effect.map(types.policies(path.id), ok))
      .handle("updatePolicies", ({ path, payload }) => Effect.map(types.setPolicies(path.id, payload), ok))
  }))

/** `/api/v2/admin/groups/types` (decisions D17 "Groups admin"): group types and their policies. */
export const GroupTypesAdminHttpLive = GroupTypesAdminHandlers.pipe(Layer.provide(GroupTypesAdminService.Default))
