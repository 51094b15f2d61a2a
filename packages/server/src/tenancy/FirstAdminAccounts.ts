import type { CurrentTenant, NewTenantAdmin, UserId } from "@timebank/domain"
import { Context, type Effect } from "effect"

/** The account a new community's first admin gets. */
export interface FirstAdmin {
  readonly id: UserId
  readonly email: string
}

/**
 * Writes a new community's first admin. Identity provides it: tenancy sits below identity and never imports it.
 * `prepare` does the slow part (hashing the password) outside any transaction and answers the write, which runs
 * inside the transaction that creates the community, with that community as the current tenant.
 */
export class FirstAdminAccounts extends Context.Tag("FirstAdminAccounts")<FirstAdminAccounts, {
  readonly prepare: (admin: NewTenantAdmin) => Effect.Effect<Effect.Effect<FirstAdmin, never, CurrentTenant>>
}>() {}
