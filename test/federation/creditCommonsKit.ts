import { SqlClient } from "@effect/sql"
import { accountCodeOf, defaultCurrencyCode } from "@timebank/domain"
import { Effect } from "effect"
import { type ApiClient, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { rawRequest } from "../fixtures/TestApp.js"
import { optIn } from "./inboundKit.js"
import type { CcTransaction } from "./peers/creditCommonsPeer.js"

/** Helpers of the Credit Commons tests (creditCommonsInbound.test.ts, creditCommonsOutbound.test.ts). */

/** The tree of the fixtures: we are `trunk/branch2`, the partner is `trunk`, the agreed seed `trunk`. */
export const OUR_NODE_PATH = "trunk/branch2"
export const PEER_NODE_PATH = "trunk"
export const SEED = "trunk"

export const ccSettings = { our_node_path: OUR_NODE_PATH, peer_node_path: PEER_NODE_PATH }

/**
 * A community with federation on, Mia Member opted in, and an active Credit Commons partner (`trunk`, seed
 * `trunk`, our node `trunk/branch2`) at `baseUrl`. `code` is the community's currency code (its default).
 */
export const ccCommunity = (
  options: {
    readonly baseUrl?: string
    readonly seed?: string
    readonly settings?: Record<string, unknown>
    readonly fund?: number
  } = {}
) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token", fund: { member: options.fund ?? 0 } })
    yield* federationOn(c.tenant)
    yield* optIn(c.member)
    const partner = yield* makePartner(c.tenant, {
      name: "Trunk",
      protocol: "credit_commons",
      baseUrl: options.baseUrl ?? "http://127.0.0.1:9/TEST/cc",
      credentials: { hash_seed: options.seed ?? SEED },
      settings: { ...ccSettings, ...options.settings }
    })
    const code = defaultCurrencyCode(c.tenant.id)
    return {
      ...c,
      partner,
      code,
      cc: `/api/v1/federation/${code}/cc`,
      memberCode: accountCodeOf(code, c.member.id),
      otherCode: accountCodeOf(code, c.other.id)
    }
  })

/** A raw call to a Credit Commons route with the last-hash headers (raw: the tests check the wire itself). */
export const ccCall = (
  method: "GET" | "POST" | "PATCH",
  path: string,
  options: {
    readonly ccNode?: string
    readonly lastHash?: string
    readonly body?: unknown
    readonly headers?: Record<string, string>
  } = {}
) =>
  rawRequest(method, path, {
    headers: {
      ...(options.ccNode === undefined ? {} : { "cc-node": options.ccNode }),
      ...(options.lastHash === undefined ? {} : { "last-hash": options.lastHash }),
      ...options.headers
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })

/** A fixture transaction with Komunitin's local account `TEST0002` replaced by `accountCode` (nothing else). */
export const forAccount = <T extends CcTransaction>(tx: T, accountCode: string, uuid?: string): T => ({
  ...tx,
  ...(uuid === undefined ? {} : { uuid }),
  entries: tx.entries.map((e) => ({
    ...e,
    payer: e.payer.replace("TEST0002", accountCode),
    payee: e.payee.replace("TEST0002", accountCode)
  }))
})

/** A one-entry relay paying `quant` hours from a remote member to `accountCode`. */
export const relayTo = (accountCode: string, quant: number, uuid: string, description = "Garden help") => ({
  uuid,
  state: "V",
  workflow: "|P-PC+CX+",
  entries: [{
    payee: `${OUR_NODE_PATH}/${accountCode}`,
    payer: "trunk/branch/twig/alice",
    quant,
    description,
    metadata: {}
  }]
})

const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => query(sql)).pipe(Effect.orDie)

/** The chain's stored hash with a partner, or undefined before its first use. */
export const storedHash = (partnerId: number) =>
  Effect.map(
    rows((sql) =>
      sql<{ last_hash: string }>`SELECT last_hash FROM federation_cc_chains WHERE partner_id = ${partnerId}`
    ),
    (r) => r[0]?.last_hash
  )

/** The relays recorded with a partner, oldest first. */
export const relaysOf = (partnerId: number) =>
  rows((sql) =>
    sql<{ uuid: string; direction: string; hash_before: string; hash_after: string; net_cents: string }>`
      SELECT uuid::text, direction, hash_before, hash_after, net_cents::text FROM federation_cc_relays
      WHERE partner_id = ${partnerId} ORDER BY created_at, uuid`
  )

/** Ledger transactions moved under a Credit Commons relay's key. */
export const ledgerRowsOf = (tenantId: number, partnerId: number, uuid: string) =>
  rows((sql) =>
    sql<{ id: string; amount: string; description: string; type: string }>`
      SELECT id::text, amount::text, description, type FROM ledger_transactions
      WHERE tenant_id = ${tenantId} AND idempotency_key = ${`cc:${partnerId}:${uuid}`}`
  )

export const walletOf = (who: { readonly client: ApiClient }) =>
  Effect.map(expectOk(who.client.wallet.get()), (res) => res.data.balance)
