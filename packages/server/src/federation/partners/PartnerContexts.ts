import { Effect, Option } from "effect"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import type { PartnerContext } from "../protocols/FederationProtocol.js"
import { PartnerDirectory, type PartnerRecord } from "./PartnerDirectory.js"

/**
 * A partner as its protocol works with it ({@link PartnerContext}): the record, its opened credentials and our
 * community (id, slug, currency code). For diagnose runs and outbound webhooks; never log what this gives.
 */
export class PartnerContexts extends Effect.Service<PartnerContexts>()("FederationPartnerContexts", {
  dependencies: [PartnerDirectory.Default, FederationAccounts.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const directory = yield* PartnerDirectory
    const accounts = yield* FederationAccounts
    const tenants = yield* TenantDirectory

    /** The context of `partner`, a partner of the community `tenant` (the record names it). */
    const of = (partner: PartnerRecord, tenant: { readonly id: number; readonly slug: string }) =>
      Effect.map(
        Effect.all({
          credentials: directory.credentialsAnyTenant(partner.id),
          currencyCode: accounts.currencyCode(partner.tenantId)
        }, { concurrency: 2 }),
        ({ credentials, currencyCode }): PartnerContext => ({
          partner,
          credentials: Option.getOrElse(credentials, () => ({})),
          community: { id: tenant.id, slug: tenant.slug, currencyCode }
        })
      )

    /** The context of a partner of any community (workers, which run outside a request); none when it is gone. */
    const anyTenant = (partnerId: number): Effect.Effect<Option.Option<PartnerContext>> =>
      Effect.gen(function*() {
        const partner = yield* directory.findAnyTenant(partnerId)
        if (Option.isNone(partner)) return Option.none()
        const tenant = yield* tenants.findById(partner.value.tenantId)
        if (Option.isNone(tenant)) return Option.none()
        return Option.some(yield* of(partner.value, tenant.value))
      })

    return { of, anyTenant } as const
  })
}) {}
