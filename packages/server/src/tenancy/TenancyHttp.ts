import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentTenant, ok } from "@timebank/domain"
import { Effect } from "effect"
import { toPublic } from "./TenantService.js"

export const TenancyHttpLive = HttpApiBuilder.group(
  Api,
  "tenancy",
  (handlers) => handlers.handle("current", () => Effect.map(CurrentTenant, (tenant) => ok(toPublic(tenant))))
)
