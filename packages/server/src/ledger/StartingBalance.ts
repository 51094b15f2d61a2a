import { CurrentTenant, type DomainEventOf } from "@timebank/domain"
import { Effect, Option } from "effect"
import { subscriberLayer } from "../platform/OutboxPublisher.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { LedgerService } from "./LedgerService.js"

/** Events after which a member may hold credits: registration without approval, approval, admin creation. */
const MEMBERSHIP_EVENTS = ["UserRegistered", "UserApproved", "UserCreated"] as const

const becameMember = (event: DomainEventOf<typeof MEMBERSHIP_EVENTS[number]>): boolean =>
  event._tag !== "UserRegistered" || !event.requires_approval

/**
 * Grants the community's `starting_balance` once per member, after the change that made them a member committed.
 * Idempotent: the grant's key is per member, so a redelivered event moves nothing.
 */
export const StartingBalanceLive = subscriberLayer({
  name: "ledger-starting-balance",
  tags: MEMBERSHIP_EVENTS,
  handle: (event, { tenantId }) =>
    Effect.gen(function*() {
      if (!becameMember(event) || tenantId === null) return
      const tenant = yield* Effect.flatMap(TenantDirectory, (tenants) => tenants.findById(tenantId))
      if (Option.isNone(tenant)) return
      yield* Effect.flatMap(LedgerService, (ledger) => ledger.grantStartingBalance(event.user_id)).pipe(
        Effect.provideService(CurrentTenant, tenant.value)
      )
    })
})
