import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin } from "../../platform/Policy.js"
import { GroupGeocodingService } from "./GroupGeocodingService.js"

/** `POST /admin/groups/{id}/geocode` and `POST /admin/groups/batch-geocode` (decisions D17 "Groups admin"). */
export const GroupGeocodingHttpLive = HttpApiBuilder.group(
  Api,
  "adminGroupGeocoding",
  (handlers) =>
    Effect.gen(function*() {
      const service = yield* GroupGeocodingService
      return handlers
        .handle("geocode", ({ path }) => requireTenantAdmin(Effect.map(service.geocode(path.id), ok)))
        .handle("batch", ({ payload }) => requireTenantAdmin(Effect.map(service.batch(payload), ok)))
    })
)
