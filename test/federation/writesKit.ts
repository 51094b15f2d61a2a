import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import type { FederationScope } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { community } from "../fixtures/community.js"
import { federationCall, federationOn, makeApiKey, makePartner, type TestApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { optIn } from "./inboundKit.js"

/** Helpers of the inbound write tests (test/federation/transactions.test.ts, inboundWrites.test.ts). */

export const V1 = "/api/v1/federation"

export const WRITE_SCOPES: ReadonlyArray<FederationScope> = [
  "transactions:write",
  "transactions:read",
  "reviews:write",
  "messages:write"
]

export const PARTNER_NAME = "Riverside Timebank"
export const SENDER = { name: "Rita Remote", external_id: "R-17" }

/**
 * A community with federation on, Mia Member opted in (Otto Other not), and an active partner "Riverside
 * Timebank" whose key has every write scope (and a high per-key limit: some tests send many requests).
 */
export const writesCommunity = (
  options: { readonly settings?: Record<string, unknown>; readonly communitySettings?: Record<string, unknown> } = {}
) =>
  Effect.gen(function*() {
    const c = yield* community({
      signIn: "token",
      ...(options.communitySettings === undefined ? {} : { settings: options.communitySettings })
    })
    yield* federationOn(c.tenant)
    yield* optIn(c.member)
    const partner = yield* makePartner(c.tenant, {
      name: PARTNER_NAME,
      ...(options.settings === undefined ? {} : { settings: options.settings })
    })
    const key = yield* makeApiKey(c.tenant, { scopes: WRITE_SCOPES, partnerId: partner.id, rateLimitPerMinute: 5000 })
    return { ...c, partner, key }
  })

export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** A partner's write (from an address of its own: the per-IP limits are the same for every test). */
export const partnerPost = (path: string, key: TestApiKey, body: unknown) =>
  federationCall("POST", `${V1}${path}`, { key, body, headers: fromIp(randomIp()) })

export const partnerRead = (path: string, key: TestApiKey) =>
  federationCall("GET", `${V1}${path}`, { key, headers: fromIp(randomIp()) })

export const dataOf = <A = Record<string, unknown>>(res: Answer) => (res.body as { data: A }).data

/** The answer is `status` with error `code` (and `field`, when given). */
export const assertRefused = (res: Answer, status: number, code: string, field?: string) => {
  assert.strictEqual(res.status, status, JSON.stringify(res.body))
  const [error] = (res.body as { errors: ReadonlyArray<{ code: string; field?: string }> }).errors
  assert.strictEqual(error?.code, code, JSON.stringify(res.body))
  if (field !== undefined) assert.strictEqual(error?.field, field, JSON.stringify(res.body))
}

/** A `POST /transactions` body crediting `recipient` (2.5 hours unless given), with a fresh `external_id`. */
export const credit = (recipient: { readonly id: number }, overrides: Record<string, unknown> = {}) => ({
  external_id: randomUUID(),
  recipient_id: recipient.id,
  amount: 2.5,
  description: "Garden help",
  sender: SENDER,
  ...overrides
})

/** Rows of a query straight from the database (state the API does not show partners). */
export const rowsOf = <A extends object>(
  query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>
) => Effect.flatMap(SqlClient.SqlClient, (sql) => query(sql)).pipe(Effect.orDie)

/** The partner's clearing balance in hours, as the ledger stores it ("0" before any move). */
export const clearingBalance = (partner: { readonly id: number; readonly tenantId: number }) =>
  Effect.map(
    rowsOf((sql) =>
      sql<{ balance: string }>`
        SELECT balance::text AS balance FROM ledger_accounts
        WHERE tenant_id = ${partner.tenantId} AND kind = 'partner' AND owner_id = ${partner.id}`
    ),
    (rows) => Number(rows[0]?.balance ?? 0)
  )
