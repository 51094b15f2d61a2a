import { DEFAULT_PARTNER_CREDIT_LIMIT, FederationPartner } from "@timebank/domain"
import { DateTime } from "effect"
import type { PartnerRow } from "./PartnerRepo.js"

/** The clearing credit limit (hours) a partner's stored settings give: `credit_limit`, else 100. */
export const partnerCreditLimit = (settings: Readonly<Record<string, unknown>>): number => {
  const limit = settings["credit_limit"]
  return typeof limit === "number" && Number.isFinite(limit) && limit >= 0 ? limit : DEFAULT_PARTNER_CREDIT_LIMIT
}

/** The view with a Credit Commons partner's current chain hash (decisions D16: the partner's GET shows it). */
export const withCreditCommonsChain = (view: FederationPartner, lastHash: string): FederationPartner =>
  FederationPartner.make({ ...view, cc: { last_hash: lastHash } })

/** The one admin view of a partner (list and detail): credentials only as `{"<name>": true}`, never their values. */
export const partnerView = (row: PartnerRow): FederationPartner =>
  FederationPartner.make({
    id: row.id,
    name: row.name,
    protocol_type: row.protocol_type,
    base_url: row.base_url,
    webhook_url: row.webhook_url,
    credentials: Object.fromEntries(row.credential_keys.map((key) => [key, true as const])),
    settings: { ...row.settings, credit_limit: partnerCreditLimit(row.settings) },
    status: row.status,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })
