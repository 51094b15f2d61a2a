import type { PartnerDiagnosis } from "@timebank/domain"
import { Effect } from "effect"
import { PartnerContexts } from "../partners/PartnerContexts.js"
import type { PartnerRecord } from "../partners/PartnerDirectory.js"
import { DIAGNOSE_CHECKS } from "../protocols/FederationProtocol.js"
import { FederationProtocols } from "../protocols/FederationProtocols.js"

/**
 * The diagnose run of decisions D16: the partner's protocol checks the connection (reachability, currency, auth,
 * account, hash chain, webhook, clock skew — those it has), each check quoting what the partner answered. Nothing
 * changes here: the partners admin decides what a result means (`/test` activates on success).
 */
export class PartnerDiagnose extends Effect.Service<PartnerDiagnose>()("FederationPartnerDiagnose", {
  dependencies: [FederationProtocols.Default, PartnerContexts.Default],
  effect: Effect.gen(function*() {
    const protocols = yield* FederationProtocols
    const contexts = yield* PartnerContexts

    /** Runs the checks of `partner`, a partner of the community `tenant`. */
    const run = (partner: PartnerRecord, tenant: { readonly id: number; readonly slug: string }) =>
      Effect.gen(function*() {
        const context = yield* contexts.of(partner, tenant)
        const checks = yield* protocols.of(partner.protocolType).diagnose(context)
        const ordered = [...checks].sort((a, b) => DIAGNOSE_CHECKS.indexOf(a.name) - DIAGNOSE_CHECKS.indexOf(b.name))
        return {
          ok: ordered.length > 0 && ordered.every((c) => c.ok),
          checks: ordered.map(({ detail, name, ok }) => ({ name, ok, detail }))
        } satisfies PartnerDiagnosis
      }).pipe(
        Effect.withSpan("FederationPartner.diagnose", {
          attributes: { partner_id: partner.id, protocol: partner.protocolType }
        })
      )

    return { run } as const
  })
}) {}
