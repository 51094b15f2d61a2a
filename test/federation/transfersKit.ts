import { assert } from "@effect/vitest"
import { FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { expectOk } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { optIn } from "./inboundKit.js"
import { clearingBalance, rowsOf } from "./writesKit.js"

/**
 * Helpers of the outbound transfer tests (`POST /api/v2/federation/transfers`), for every protocol:
 *
 *   const c = yield* transfersCommunity({ protocol: "native", baseUrl: peer.url, credentials: peer.credentials })
 *   const data = yield* sendTransfer(c.member, { partner_id: c.partner.id, recipient: "42", amount: 2.5 })
 *   yield* debitsOf(c.tenant.id)          the ledger's debits and reversals of outbound transfers
 */

/**
 * A community with federation on, no starting balance, Mia Member opted in with `fund` hours (default 10; Otto
 * Other not opted in, no hours) and an active partner of `protocol` at `baseUrl`.
 */
export const transfersCommunity = (options: {
  readonly protocol?: "native" | "komunitin" | "credit_commons" | "timeoverflow"
  readonly baseUrl: string
  readonly credentials: Record<string, string>
  readonly settings?: Record<string, unknown>
  readonly status?: "pending" | "active" | "suspended" | "failed"
  readonly fund?: number
  readonly partnerName?: string
}) =>
  Effect.gen(function*() {
    const c = yield* community({
      signIn: "token",
      settings: { starting_balance: 0 },
      fund: { member: options.fund ?? 10 }
    })
    yield* federationOn(c.tenant)
    yield* optIn(c.member)
    const partner = yield* makePartner(c.tenant, {
      name: options.partnerName ?? "Riverside Timebank",
      protocol: options.protocol ?? "native",
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.status === undefined ? {} : { status: options.status })
    })
    return { ...c, partner }
  })

export interface TransferBody {
  readonly partner_id: number
  readonly recipient: string
  readonly amount: number
  readonly description?: string
}

/** The typed call (a fresh Idempotency-Key unless given), `withResponse`: pipe into expectStatus / expectError. */
export const transferCall = (who: Actor, body: TransferBody, idempotencyKey: string = randomUUID()) =>
  who.client.federationTransfers.create({
    headers: { "idempotency-key": idempotencyKey },
    payload: {
      partner_id: FederationPartnerId.make(body.partner_id),
      recipient: body.recipient,
      amount: body.amount,
      description: body.description ?? "Garden help"
    },
    withResponse: true
  })

/** A transfer that must be answered (201); its `data`. */
export const sendTransfer = (who: Actor, body: TransferBody, idempotencyKey?: string) =>
  Effect.map(
    transferCall(who, body, idempotencyKey).pipe(
      Effect.tap(([, response]) =>
        response.status === 201 ? Effect.void : Effect.dieMessage(`expected 201, got ${response.status}`)
      ),
      expectOk
    ),
    ([value]) => value.data
  )

export const walletOf = (who: Actor) => Effect.map(expectOk(who.client.wallet.get()), (res) => res.data.balance)

/** The ledger's debits (`federation-out:`) and reversals (`federation-out-reversal:`) of outbound transfers. */
export const debitsOf = (tenantId: number) =>
  rowsOf((sql) =>
    sql<{ id: string; idempotency_key: string; amount: string }>`
      SELECT id, idempotency_key, amount::text AS amount FROM ledger_transactions
      WHERE tenant_id = ${tenantId} AND idempotency_key LIKE 'federation-out%' ORDER BY id`
  )

/** The community's outbound transfer rows, as stored. */
export const transferRowsOf = (tenantId: number) =>
  rowsOf((sql) =>
    sql<{ id: string; status: string; outcome_unknown: boolean }>`
      SELECT id, status, outcome_unknown FROM federation_outbound_transfers WHERE tenant_id = ${tenantId}`
  )

interface Sender {
  readonly tenant: { readonly id: number }
  readonly member: Actor
  readonly partner: { readonly id: number; readonly tenantId: number }
}

/**
 * After one failed transfer of 2.5 hours: the member holds `hours` again, the clearing account is at 0, the ledger
 * has the debit and its reversal and holds.
 */
export const assertReversed = (c: Sender, hours: number) =>
  Effect.gen(function*() {
    assert.strictEqual(yield* walletOf(c.member), hours)
    assert.strictEqual(yield* clearingBalance(c.partner), 0)
    const moves = yield* debitsOf(c.tenant.id)
    assert.deepStrictEqual(moves.map((m) => [m.idempotency_key.split(":")[0], m.amount]), [
      ["federation-out", "2.50"],
      ["federation-out-reversal", "2.50"]
    ])
    assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
  })

/** After a refused request: nothing recorded, nothing moved (the member still holds `hours`), nothing sent. */
export const assertNothingHappened = (
  c: Sender,
  peer: { readonly requests: ReadonlyArray<unknown> },
  hours: number
) =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* transferRowsOf(c.tenant.id), [])
    assert.deepStrictEqual(yield* debitsOf(c.tenant.id), [])
    assert.strictEqual(peer.requests.length, 0)
    assert.strictEqual(yield* walletOf(c.member), hours)
  })
