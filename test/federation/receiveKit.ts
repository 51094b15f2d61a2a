import { SqlClient } from "@effect/sql"
import type { FederationToggle } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { community, type CommunityOptions } from "../fixtures/community.js"
import { federationCall, federationOn, makeApiKey, makePartner, type TestApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"

/** Helpers of the webhook receipt and federated browse tests (webhooksReceive.test.ts, browse.test.ts). */

export const RECEIVE = "/api/v1/federation/webhooks/receive"

export interface Webhook {
  readonly id: string
  readonly event: string
  readonly tenant: { readonly id: number; readonly slug: string }
  readonly occurred_at: string
  readonly data: Record<string, unknown>
}

/** A webhook as a native partner sends it (our own outbound body, D13), with a fresh id. */
export const webhook = (event: string, data: Record<string, unknown>, extra: Partial<Webhook> = {}): Webhook => ({
  id: randomUUID(),
  event,
  tenant: { id: 9, slug: "river" },
  occurred_at: new Date().toISOString(),
  data,
  ...extra
})

/** A signed `webhooks/receive` call (the four HMAC headers, no bearer) from an address of its own. */
export const receive = (key: TestApiKey, body: unknown, options: { readonly bearer?: boolean } = {}) =>
  federationCall("POST", RECEIVE, {
    key,
    body,
    sign: true,
    bearer: options.bearer ?? false,
    headers: fromIp(randomIp())
  })

/**
 * A community with federation on (every toggle unless given), an active partner and a signing key bound to it that
 * may also credit members (`transactions:write`), with a limit no test reaches.
 */
export const partnerCommunity = (
  options: {
    readonly toggles?: ReadonlyArray<FederationToggle>
    readonly partnerName?: string
    readonly community?: CommunityOptions
  } = {}
) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token", ...options.community })
    yield* federationOn(c.tenant, options.toggles)
    const partner = yield* makePartner(c.tenant, { name: options.partnerName ?? "River Bank" })
    const key = yield* makeApiKey(c.tenant, {
      partnerId: partner.id,
      signing: true,
      scopes: ["transactions:write", "transactions:read", "listings:read"],
      rateLimitPerMinute: 10_000
    })
    return { c, partner, key }
  })

/** Another partner of the same community, with its own signing key. */
export const anotherPartner = (tenant: { readonly id: number }, name: string) =>
  Effect.gen(function*() {
    const partner = yield* makePartner(tenant, { name })
    const key = yield* makeApiKey(tenant, { partnerId: partner.id, signing: true, rateLimitPerMinute: 10_000 })
    return { partner, key }
  })

const query = <A extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, run).pipe(Effect.orDie)

export interface StoredRecord {
  readonly id: number
  readonly tenant_id: number
  readonly kind: string
  readonly remote_id: string
  readonly remote_member_id: string | null
  readonly data: Record<string, unknown>
}

/** A partner's stored records, oldest first. */
export const recordsOf = (partnerId: number) =>
  query<StoredRecord>((sql) =>
    sql<StoredRecord>`
      SELECT id::int, tenant_id::int, kind, remote_id, remote_member_id, data
      FROM federated_records WHERE partner_id = ${partnerId} ORDER BY id`
  )

export interface Receipt {
  readonly webhook_id: string
  readonly tenant_id: number
  readonly event: string
  readonly handled: boolean
}

/** The receipts of a key, oldest first. */
export const receiptsOf = (keyId: number) =>
  query<Receipt>((sql) =>
    sql<Receipt>`
      SELECT webhook_id, tenant_id::int, event, handled FROM federation_webhook_receipts
      WHERE key_id = ${keyId} ORDER BY received_at, webhook_id`
  )

/** Sets a partner's status (or deletes it) as the admin routes and the breaker would. */
export const setPartnerStatus = (partnerId: number, status: "pending" | "active" | "suspended" | "failed") =>
  query((sql) => sql`UPDATE federation_partners SET status = ${status} WHERE id = ${partnerId}`)

export const deletePartner = (partnerId: number) =>
  query((sql) => sql`UPDATE federation_partners SET deleted_at = now() WHERE id = ${partnerId}`)
