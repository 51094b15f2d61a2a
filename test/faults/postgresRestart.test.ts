import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { community } from "../fixtures/community.js"
import { apiProcess, deployment, type Operator, operatorOn } from "../fixtures/deployment.js"
import { fund, verifyLedger } from "../fixtures/ledger.js"
import { assertPaymentsKept, type Payment, payment, recoveryTime, report, send } from "../fixtures/load.js"
import { privatePostgres } from "../fixtures/privateServices.js"

/** How long the service may take to answer 2xx again once PostgreSQL accepts connections (issue 20). */
const RECOVERY_LIMIT = Duration.seconds(10)
const WORKERS = 4

describe("PostgreSQL restart under load (a private server stopped and started again under an API process)", () => {
  it.scopedLive(
    "the API answers again within 10 s of PostgreSQL's return without a restart; no acknowledged transfer is lost",
    () =>
      Effect.gen(function*() {
        const pg = yield* privatePostgres
        const d = deployment(pg.url, undefined, { JOBS_SCHEDULER: "off" })
        const api = yield* apiProcess(d, { socket: true })
        const ops = yield* Layer.build(operatorOn(d, api))
        const on = <A, E>(effect: Effect.Effect<A, E, Operator>) => Effect.provide(effect, ops)
        const c = yield* on(community({
          settings: { starting_balance: 0 },
          signIn: "token",
          members: WORKERS,
          fund: { member: 100, admin: 100 }
        }))
        const payers = [c.member, ...c.members]
        for (const m of c.members) yield* on(fund(c.admin.headers, m.id, 100))

        // Load: each worker pays (retrying one Idempotency-Key until answered) and reads its wallet, until told.
        const bases = () => [api.base]
        const payments: Array<Payment> = []
        const reads: Array<number> = []
        let running = true
        const worker = (payer: { readonly id: number; readonly headers: Record<string, string> }) =>
          Effect.gen(function*() {
            while (running) {
              payments.push(yield* payment(bases, 0, payer, c.other.id, 0.25, Date.now() + 20_000))
              reads.push((yield* send(api.base, "GET", "/api/v2/wallet", payer.headers, undefined, "5 seconds")).status)
            }
          })
        const load = yield* Effect.fork(Effect.all(payers.map(worker), { concurrency: "unbounded" }))
        yield* Effect.sleep("2 seconds")
        const before = payments.length

        yield* pg.stop
        const stoppedAt = Date.now()
        yield* Effect.sleep("2 seconds")
        yield* pg.start
        const back = Date.now()
        yield* report(`PostgreSQL down for ${back - stoppedAt} ms`)

        // From the moment PostgreSQL accepts connections: a read and a (new) transfer answer 2xx.
        const [readBack, writeBack] = yield* Effect.all([
          recoveryTime(back, () =>
            send(api.base, "GET", "/api/v2/wallet", c.other.headers, undefined, "5 seconds"), RECOVERY_LIMIT),
          recoveryTime(back, () =>
            send(
              api.base,
              "POST",
              "/api/v2/wallet/transfers",
              {
                ...c.admin.headers,
                "idempotency-key": randomUUID()
              },
              { recipient_id: c.other.id, amount: 0.25, description: "probe" },
              "5 seconds"
            ), RECOVERY_LIMIT)
        ], { concurrency: 2 })
        yield* report(`PostgreSQL back: reads answered after ${readBack} ms, transfers after ${writeBack} ms`)
        assert.isAtMost(readBack, Duration.toMillis(RECOVERY_LIMIT))
        assert.isAtMost(writeBack, Duration.toMillis(RECOVERY_LIMIT))

        yield* Effect.sleep("1 second")
        running = false
        yield* Fiber.join(load)
        assert.isAbove(before, 0, "payments went through before the stop")
        const acknowledged = yield* on(assertPaymentsKept(c.tenant.id, payments))
        assert.isAbove(acknowledged, before, "payments went through after the restart")
        assert.isTrue((yield* on(verifyLedger(c.tenant.id))).ok)
        // The process was never restarted.
        assert.isNull(api.process.child.exitCode)
      }),
    240_000
  )
})
