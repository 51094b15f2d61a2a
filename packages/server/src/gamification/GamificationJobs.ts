import { CurrentTenant } from "@timebank/domain"
import { Effect, Layer, Option } from "effect"
import { registerJobs } from "../platform/JobRegistry.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { BadgeAwards } from "./BadgeAwards.js"

/**
 * `badges.recheck` (decisions D17 "Jobs"), nightly per community: awards every badge whose criteria a member's
 * recorded activity meets and they lack (a badge created or lowered since, an event passed over). Its items are the
 * badges awarded. A community with gamification off is left alone.
 */
export const GamificationJobsLive = registerJobs(
  Effect.map(Effect.zip(BadgeAwards, TenantDirectory), ([awards, tenants]) => [{
    id: "badges.recheck",
    description: "Awards the badges whose criteria members' recorded activity meets and they do not hold yet",
    schedule: "30 3 * * *",
    run: ({ tenantId }) =>
      Effect.flatMap(
        tenants.findById(tenantId),
        (tenant) =>
          Option.isNone(tenant) || !tenant.value.isEnabled("gamification")
            ? Effect.succeed(0)
            : Effect.provideService(awards.recheck(null), CurrentTenant, tenant.value)
      )
  }])
).pipe(Layer.provide(Layer.merge(BadgeAwards.Default, TenantDirectory.Default)))
