import type { FederationPartner } from "@timebank/domain"
import { Effect, Option } from "effect"
import { PartnerDirectory } from "../partners/PartnerDirectory.js"
import { withCreditCommonsChain } from "../partners/PartnerViews.js"
import { CreditCommonsChains } from "./CreditCommonsChains.js"

/**
 * A Credit Commons partner's admin view shows its chain's current hash (decisions D16): what was agreed last with
 * the partner, or the seed while there is no relay yet or the admin set a new seed. Read only, in the current tenant.
 */
export class CreditCommonsPartnerView extends Effect.Service<CreditCommonsPartnerView>()("CreditCommonsPartnerView", {
  dependencies: [CreditCommonsChains.Default, PartnerDirectory.Default],
  effect: Effect.gen(function*() {
    const chains = yield* CreditCommonsChains
    const partners = yield* PartnerDirectory

    const withChain = (view: FederationPartner) =>
      Effect.gen(function*() {
        if (view.protocol_type !== "credit_commons") return view
        const credentials = yield* partners.credentials(view.id)
        const seed = Option.flatMap(credentials, (c) => Option.fromNullable(c["hash_seed"]))
        if (Option.isNone(seed)) return view
        return withCreditCommonsChain(view, yield* chains.currentHash({ partnerId: view.id, seed: seed.value }))
      })

    return { withChain } as const
  })
}) {}
