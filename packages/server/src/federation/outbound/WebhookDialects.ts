import { type PartnerProtocol, PartnerProtocol as PartnerProtocolSchema } from "@timebank/domain"
import { Effect } from "effect"
import type { WebhookDialect } from "../protocols/FederationProtocol.js"
import { FederationProtocols } from "../protocols/FederationProtocols.js"

const SQL_NAME = /^[a-z][a-z0-9_]*$/

const sqlName = (name: string) => {
  if (!SQL_NAME.test(name)) throw new Error(`not a plain name: ${name}`)
  return `'${name}'`
}

/**
 * Which partners take our outbound webhooks, and in which form (decisions D13, D16): those whose protocol has a
 * webhook dialect (native, timeoverflow), holding every credential that protocol requires, with a webhook URL or a
 * protocol default for it. Built once from the protocol registry.
 */
export class WebhookDialects extends Effect.Service<WebhookDialects>()("FederationWebhookDialects", {
  dependencies: [FederationProtocols.Default],
  effect: Effect.gen(function*() {
    const protocols = yield* FederationProtocols
    const routes = PartnerProtocolSchema.literals.flatMap((name) => {
      const protocol = protocols.of(name)
      return protocol.webhook === undefined
        ? []
        : [{ name, dialect: protocol.webhook, credentials: protocol.requiredCredentials }]
    })

    const routeCondition = (route: typeof routes[number]) =>
      [
        `p.protocol_type = ${sqlName(route.name)}`,
        ...(route.credentials.length === 0
          ? []
          : [`p.credential_keys @> ARRAY[${route.credentials.map(sqlName).join(", ")}]::text[]`]),
        ...(route.dialect.defaultUrl === undefined ? ["p.webhook_url IS NOT NULL"] : [])
      ].join(" AND ")

    /**
     * SQL on a partner `p` (not deleted, `active` or `failed` — the breaker's): it takes webhooks. Made of the
     * registry's names only, never of input.
     */
    const receiving = "p.deleted_at IS NULL AND p.status IN ('active', 'failed') AND (" +
      (routes.length === 0 ? "false" : routes.map((r) => `(${routeCondition(r)})`).join(" OR ")) + ")"

    const dialectOf = (protocol: PartnerProtocol): WebhookDialect | undefined =>
      routes.find((r) => r.name === protocol)?.dialect

    /** Where the partner's webhooks go: its `webhook_url`, else its protocol's default; null: nowhere. */
    const urlOf = (partner: {
      readonly protocol_type: PartnerProtocol
      readonly webhook_url: string | null
      readonly base_url: string
    }): string | null => partner.webhook_url ?? dialectOf(partner.protocol_type)?.defaultUrl?.(partner.base_url) ?? null

    return { receiving, dialectOf, urlOf } as const
  })
}) {}
