import type { FederationPartnerId, PartnerProtocol, PartnerStatus } from "@timebank/domain"
import { Effect, Option } from "effect"
import { SecretBox } from "../../platform/SecretBox.js"
import { decodeCredentialMap } from "../outbound/SignedPost.js"
import { PartnerRepo, type PartnerRow } from "./PartnerRepo.js"
import { partnerCreditLimit } from "./PartnerViews.js"

/** A partner as the other federation parts need it (no secrets: ask {@link PartnerDirectory.credentials}). */
export interface PartnerRecord {
  readonly id: FederationPartnerId
  readonly tenantId: number
  readonly name: string
  readonly protocolType: PartnerProtocol
  readonly baseUrl: string
  readonly webhookUrl: string | null
  readonly status: PartnerStatus
  /** Hours the clearing account may go below zero (`settings.credit_limit`, default 100). */
  readonly creditLimit: number
  readonly credentialKeys: ReadonlyArray<string>
  readonly settings: Readonly<Record<string, unknown>>
}

const recordOf = (row: PartnerRow): PartnerRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  protocolType: row.protocol_type,
  baseUrl: row.base_url,
  webhookUrl: row.webhook_url,
  status: row.status,
  creditLimit: partnerCreditLimit(row.settings),
  credentialKeys: row.credential_keys,
  settings: row.settings
})

/**
 * What other federation parts may read of partners: a partner of the current tenant (or, for workers without a
 * request, of any tenant) and its opened credentials. Deleted partners are not found. Opened credentials are for
 * signing only: never log them or put them in a response.
 */
export class PartnerDirectory extends Effect.Service<PartnerDirectory>()("PartnerDirectory", {
  dependencies: [PartnerRepo.Default, SecretBox.Default],
  effect: Effect.gen(function*() {
    const repo = yield* PartnerRepo
    const box = yield* SecretBox

    /** The partner's credentials by name; `{}` when none are set. */
    const opened = (row: PartnerRow) =>
      row.credentials === null
        ? Effect.succeed<Record<string, string>>({})
        : Effect.map(box.open(row.credentials), decodeCredentialMap)

    const openedOf = <E, R>(found: Effect.Effect<Option.Option<PartnerRow>, E, R>) =>
      Effect.flatMap(
        found,
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (row) => Effect.asSome(opened(row))
        })
      )

    return {
      /** A partner of the current tenant. */
      find: (partnerId: number) => Effect.map(repo.find(partnerId), Option.map(recordOf)),
      /** A partner of any tenant (its record names the tenant). */
      findAnyTenant: (partnerId: number) => Effect.map(repo.findAnyTenant(partnerId), Option.map(recordOf)),
      /** The opened credentials of a partner of the current tenant. */
      credentials: (partnerId: number) => openedOf(repo.find(partnerId)),
      /** The opened credentials of a partner of any tenant. */
      credentialsAnyTenant: (partnerId: number) => openedOf(repo.findAnyTenant(partnerId)),
      /** The opened credentials of a row already read. */
      opened
    } as const
  })
}) {}
