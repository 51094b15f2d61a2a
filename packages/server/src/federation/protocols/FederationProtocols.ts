import type { PartnerProtocol } from "@timebank/domain"
import { Effect } from "effect"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { CreditCommonsChains } from "../creditcommons/CreditCommonsChains.js"
import { makeCreditCommonsProtocol } from "./CreditCommonsProtocol.js"
import type { FederationProtocol } from "./FederationProtocol.js"
import { makeKomunitinProtocol } from "./KomunitinProtocol.js"
import { makeNativeProtocol } from "./NativeProtocol.js"
import { makeTimeOverflowProtocol } from "./TimeOverflowProtocol.js"

/** Every partner protocol we speak (decisions D16), by `protocol_type`: a new protocol is one file and one line. */
export class FederationProtocols extends Effect.Service<FederationProtocols>()("FederationProtocols", {
  dependencies: [CreditCommonsChains.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const all: Record<PartnerProtocol, FederationProtocol> = {
      native: yield* makeNativeProtocol,
      komunitin: yield* makeKomunitinProtocol,
      credit_commons: yield* makeCreditCommonsProtocol,
      timeoverflow: yield* makeTimeOverflowProtocol
    }
    return { of: (protocol: PartnerProtocol): FederationProtocol => all[protocol] } as const
  })
}) {}
