import { CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import type { OutboxEvent } from "../platform/Outbox.js"
import { subscriberLayer } from "../platform/OutboxPublisher.js"
import { TenantRepo } from "../tenancy/TenantRepo.js"
import { LedgerService } from "./LedgerService.js"

/** Events after which a member may hold credits: registration without approval, approval, admin creation. */
const becameMember = (event: OutboxEvent): Option.Option<number> => {
  const payload = event.payload as { readonly user_id?: number; readonly requires_approval?: boolean }
  if (typeof payload.user_id !== "number") return Option.none()
  switch (event.type) {
    case "UserRegistered":
      return payload.requires_approval === false ? Option.some(payload.user_id) : Option.none()
    case "UserApproved":
    case "UserCreated":
      return Option.some(payload.user_id)
    default:
      return Option.none()
  }
}

/**
 * Grants the community's `starting_balance` once per member, after the change that made them a member committed.
 * Idempotent: the grant's key is per member, so a redelivered event moves nothing.
 */
export const StartingBalanceLive = subscriberLayer<LedgerService | TenantRepo>({
  name: "ledger-starting-balance",
  handle: (event) =>
    Option.match(Option.all([becameMember(event), Option.fromNullable(event.tenantId)]), {
      onNone: () => Effect.void,
      onSome: ([userId, tenantId]) =>
        Effect.gen(function*() {
          const tenant = yield* Effect.flatMap(TenantRepo, (repo) => repo.findById(tenantId))
          if (Option.isNone(tenant)) return
          yield* Effect.flatMap(LedgerService, (ledger) => ledger.grantStartingBalance(userId)).pipe(
            Effect.provideService(CurrentTenant, tenant.value)
          )
        })
    })
})
