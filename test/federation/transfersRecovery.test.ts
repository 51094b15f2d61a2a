import { assert, describe, layer } from "@effect/vitest"
import { FederationTransferId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { asJson, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import { nativePeer } from "./peers/nativePeer.js"
import { debitsOf, sendTransfer, transferRowsOf, transfersCommunity, walletOf } from "./transfersKit.js"
import { clearingBalance, rowsOf } from "./writesKit.js"

/**
 * The `federation.transfers.recover` job (decisions "Outbound transfers"): outbound transfers that a process left
 * `pending` when it stopped between its steps. A process cannot be stopped inside the in-process app, so a test
 * puts a row back into the state a stop leaves behind (the ledger is never touched: it is append-only) and ages it
 * past the job's 10 minutes.
 */

const JOB = "federation.transfers.recover"

const setup = Effect.gen(function*() {
  const peer = yield* nativePeer()
  const c = yield* transfersCommunity({ baseUrl: peer.url, credentials: peer.credentials })
  return { ...c, peer, to42: { partner_id: c.partner.id, recipient: "42", amount: 2.5 } }
})

/**
 * A sent transfer as a process leaves it when it stops after the debit and before recording it or settling: pending,
 * no debit id on the row (the ledger has the debit), created `minutesAgo` minutes ago.
 */
const stoppedAfterDebit = (id: number, minutesAgo: number) =>
  rowsOf((sql) =>
    sql`UPDATE federation_outbound_transfers
        SET status = 'pending', remote_id = NULL, transaction_id = NULL,
            created_at = now() - make_interval(mins => ${minutesAgo})
        WHERE id = ${id}`
  )

/** A copy of transfer `id` as a process leaves it when it stops before the debit: pending, nothing in the ledger. */
const stoppedBeforeDebit = (id: number, minutesAgo: number) =>
  Effect.map(
    rowsOf((sql) =>
      sql<{ id: string }>`
        INSERT INTO federation_outbound_transfers (tenant_id, partner_id, user_id, uuid, request_hash, recipient,
          amount, description, remote_amount, created_at)
        SELECT tenant_id, partner_id, user_id, ${randomUUID()}, request_hash, recipient, amount, description,
          remote_amount, now() - make_interval(mins => ${minutesAgo})
        FROM federation_outbound_transfers WHERE id = ${id}
        RETURNING id`
    ),
    (rows) => Number(rows[0]!.id)
  )

/** A community whose member's transfer of 2.5 hours was stopped after its debit, 11 minutes ago. */
const setupWithStopped = Effect.gen(function*() {
  const c = yield* setup
  const stopped = yield* sendTransfer(c.member, c.to42)
  yield* stoppedAfterDebit(stopped.id, 11)
  return { ...c, stopped }
})

const runRecover = (admin: Actor) =>
  Effect.map(
    admin.client.adminCronJobs.run({ path: { id: JOB }, withResponse: true }).pipe(expectStatus(200)),
    (res) => asJson(res.data) as { status: string; items: number; error: string | null }
  )

const statusesOf = (tenantId: number) =>
  Effect.map(transferRowsOf(tenantId), (rows) => Object.fromEntries(rows.map((r) => [Number(r.id), r.status])))

layer(TestApp({ FEDERATION_TRANSFER_TIMEOUT: "1 second" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "federation outbound transfers: recovering those a stopped process left pending",
  (it) => {
    describe(JOB, () => {
      it.scoped(
        "returns the hours of a transfer stopped after its debit (failed, outcome unknown), forgets one stopped " +
          "before it, leaves young ones and other communities' alone, and moves nothing on a second run",
        () =>
          Effect.gen(function*() {
            const c = yield* setup
            const stopped = yield* sendTransfer(c.member, c.to42)
            const debitId = stopped.transaction_id!
            yield* stoppedAfterDebit(stopped.id, 11)
            const young = yield* sendTransfer(c.member, c.to42)
            yield* stoppedAfterDebit(young.id, 1)
            const neverDebited = yield* stoppedBeforeDebit(stopped.id, 30)
            const d = yield* setup
            const elsewhere = yield* sendTransfer(d.member, d.to42)
            yield* stoppedAfterDebit(elsewhere.id, 11)
            assert.strictEqual(yield* walletOf(c.member), 5)

            assert.include(yield* runRecover(c.admin), { status: "succeeded", items: 2, error: null })

            const after = yield* expectOk(c.member.client.federationTransfers.get({ path: { id: stopped.id } }))
            assert.include(asJson(after.data), {
              status: "failed",
              outcome_unknown: true,
              transaction_id: debitId,
              remote_id: null
            })
            assert.strictEqual(after.data.failure?.http_status, null)
            assert.include(after.data.failure?.detail, "interrupted")
            assert.include(after.data.failure?.detail, "outcome at the partner is unknown")
            assert.isNumber(after.data.reversal_transaction_id)
            // The stopped transfer's hours are back; the young one's debit stays with the partner's account.
            assert.strictEqual(yield* walletOf(c.member), 7.5)
            assert.strictEqual(yield* clearingBalance(c.partner), 2.5)
            assert.deepStrictEqual(
              (yield* debitsOf(c.tenant.id)).map((m) => [m.idempotency_key, m.amount]),
              [
                [`federation-out:${stopped.uuid}`, "2.50"],
                [`federation-out:${young.uuid}`, "2.50"],
                [`federation-out-reversal:${stopped.uuid}`, "2.50"]
              ]
            )
            assert.deepStrictEqual(yield* statusesOf(c.tenant.id), { [stopped.id]: "failed", [young.id]: "pending" })
            yield* c.member.client.federationTransfers.get({ path: { id: FederationTransferId.make(neverDebited) } })
              .pipe(expectError(404, "NOT_FOUND"))
            const history = yield* expectOk(c.member.client.wallet.transactions({ urlParams: {} }))
            assert.deepInclude(history.data[0], {
              id: after.data.reversal_transaction_id!,
              type: "federated",
              amount: 2.5,
              direction: "in",
              description: "Returned: the transfer to Riverside Timebank was interrupted"
            })
            assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

            // Again: nothing is left to settle, and nothing moves twice.
            assert.include(yield* runRecover(c.admin), { status: "succeeded", items: 0 })
            assert.lengthOf(yield* debitsOf(c.tenant.id), 3)
            assert.strictEqual(yield* walletOf(c.member), 7.5)

            // The other community's stopped transfer waited for its own run.
            assert.deepStrictEqual(yield* statusesOf(d.tenant.id), { [elsewhere.id]: "pending" })
            assert.include(yield* runRecover(d.admin), { status: "succeeded", items: 1 })
            assert.deepStrictEqual(yield* statusesOf(d.tenant.id), { [elsewhere.id]: "failed" })
            assert.strictEqual(yield* walletOf(d.member), 10)
            assert.isTrue((yield* verifyLedger(d.tenant.id)).ok)
          })
      )

      it.scoped("returns the hours when the partner was deleted since", () =>
        Effect.gen(function*() {
          const { stopped, ...c } = yield* setupWithStopped
          yield* rowsOf((sql) => sql`UPDATE federation_partners SET deleted_at = now() WHERE id = ${c.partner.id}`)
          assert.include(yield* runRecover(c.admin), { status: "succeeded", items: 1 })
          assert.deepStrictEqual(yield* statusesOf(c.tenant.id), { [stopped.id]: "failed" })
          assert.strictEqual(yield* walletOf(c.member), 10)
          assert.strictEqual(yield* clearingBalance(c.partner), 0)
          const history = yield* expectOk(c.member.client.wallet.transactions({ urlParams: {} }))
          assert.strictEqual(history.data[0]?.description, "Returned: the transfer to the partner was interrupted")
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("is an admin's to run: a member is refused 403 and nothing is settled", () =>
        Effect.gen(function*() {
          const { stopped, ...c } = yield* setupWithStopped
          yield* c.member.client.adminCronJobs.run({ path: { id: JOB } }).pipe(expectError(403, "FORBIDDEN"))
          assert.deepStrictEqual(yield* statusesOf(c.tenant.id), { [stopped.id]: "pending" })
          assert.strictEqual(yield* walletOf(c.member), 7.5)
        }))

      it.scoped("runs by default every five minutes", () =>
        Effect.gen(function*() {
          const c = yield* setup
          const jobs = yield* expectOk(c.admin.client.adminCronJobs.list())
          assert.include(asJson(jobs.data.find((job) => job.id === JOB)), { schedule: "*/5 * * * *", enabled: true })
        }))
    })
  }
)
