import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { DomainEvents, type Tenant } from "@timebank/domain"
import { Outbox } from "@timebank/server"
import { Duration, Effect, Fiber, Layer } from "effect"
import { FAST_DELIVERY } from "../federation/webhookKit.js"
import { partnerCredentials, webhookReceiver } from "../federation/webhookReceiver.js"
import { apiProcess, deployment, type Operator, operatorOn } from "../fixtures/deployment.js"
import { makeEvent, rsvpsOf, waitlistOf } from "../fixtures/events.js"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { fund, verifyLedger } from "../fixtures/ledger.js"
import {
  type Answer,
  assertPaymentsKept,
  outcomeOf,
  type Payment,
  payment,
  report,
  type Rsvp,
  rsvpGoing,
  rsvpStatusOf
} from "../fixtures/load.js"
import { makeSignedInMembers, signIn } from "../fixtures/members.js"
import { assignment, portsWithSecondOwning, shardHolders, shardOfId, shardsSettled } from "../fixtures/runners.js"
import { makeTenant } from "../fixtures/tenants.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"
import { makeAdmin, makeUser } from "../fixtures/users.js"

/** Service for the dead runner's entities must be back on the survivor within this (issue 20). */
const RECOVERY_LIMIT = Duration.seconds(10)
const PLACES = 6
/** More members than places: the rest go to the waitlist. */
const MEMBERS = 14
const PAYERS = 3
const SCHEDULER = "system/jobs-scheduler"
const WEBHOOKS = "federation/webhook-deliveries"
const JOB = "tokens.purge"

const redisUrl = process.env["REDIS_URL"] || "redis://127.0.0.1:6379"

describe("a runner killed (SIGKILL) under RSVP and transfer load, two API processes in socket mode", () => {
  it.scopedLive(
    "no acknowledged write lost, no overbooking, no double payment; the survivor serves the dead runner's " +
      "entities within 10 s and runs its singletons",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const shardOf = yield* shardOfId
        // B, the runner to be killed, owns the scheduler's and the webhook worker's shards.
        const [portA, portB] = yield* portsWithSecondOwning([shardOf(SCHEDULER), shardOf(WEBHOOKS)])
        const d = deployment(db.url, redisUrl, {
          ...FAST_DELIVERY,
          JOB_SCHEDULES: JSON.stringify({ [JOB]: "* * * * * *" })
        })
        // Started together on a fresh database (decisions, "Several runners").
        const [a, b] = yield* Effect.all([
          apiProcess(d, { socket: true, runnerPort: portA }),
          apiProcess(d, { socket: true, runnerPort: portB })
        ], { concurrency: "unbounded" })
        const victim = b.runner!
        const survivor = a.runner!
        const ops = yield* Layer.build(operatorOn(d, a))
        const on = <A, E>(effect: Effect.Effect<A, E, Operator>) => Effect.provide(effect, ops)
        const owner = assignment([survivor, victim])
        const onVictim = (id: string) => owner(shardOf(id)) === victim
        yield* on(shardsSettled(owner))

        // A community whose Ledger lives on B, one whose Ledger lives on A; events of the first on both.
        const tenantWhere = (wanted: boolean) =>
          Effect.gen(function*() {
            while (true) {
              const tenant = yield* makeTenant({ settings: { starting_balance: 0 } })
              if (onVictim(String(tenant.id)) === wanted) return tenant
            }
          })
        const setUp = (tenant: Tenant) =>
          Effect.gen(function*() {
            const admin = yield* makeAdmin(tenant)
            const adminHeaders = yield* signIn(admin)
            const members = yield* makeSignedInMembers(tenant, PAYERS + 1)
            const payers = members.slice(0, PAYERS).map((m) => ({ id: m.user.id, headers: m.headers }))
            for (const p of payers) yield* fund(adminHeaders, p.id, 100)
            return { tenant, payers, payee: members[PAYERS]!.user.id }
          })
        const onB = yield* on(Effect.flatMap(tenantWhere(true), setUp))
        const onA = yield* on(Effect.flatMap(tenantWhere(false), setUp))
        const organiser = yield* on(makeUser(onB.tenant))
        const eventWhere = (wanted: boolean, places: number | null) =>
          Effect.gen(function*() {
            while (true) {
              const event = yield* makeEvent(organiser, { maxAttendees: places })
              if (onVictim(`${onB.tenant.id}:${event.id}`) === wanted) return event
            }
          })
        const events = yield* on(
          Effect.all([eventWhere(true, PLACES), eventWhere(true, PLACES), eventWhere(false, PLACES)])
        )
        const probeEvent = yield* on(eventWhere(true, null))
        const members = yield* on(makeSignedInMembers(onB.tenant, MEMBERS + 1))
        const probeMember = { id: members[MEMBERS]!.user.id, headers: members[MEMBERS]!.headers }
        const attendees = members.slice(0, MEMBERS).map((m) => ({ id: m.user.id, headers: m.headers }))

        // The singletons run on B: the scheduler's job runs, a webhook is delivered.
        const lastRun = on(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql<{ at: Date | null }>`SELECT last_run_at AS at FROM job_schedules WHERE job_id = ${JOB}`
          ).pipe(
            Effect.map((rows) => rows[0]?.at?.getTime() ?? 0),
            Effect.orDie
          )
        )
        const waitFor = <A>(what: string, effect: Effect.Effect<A | undefined>, limit = Duration.seconds(30)) =>
          Effect.gen(function*() {
            const started = Date.now()
            while (Date.now() - started < Duration.toMillis(limit)) {
              const found = yield* effect
              if (found !== undefined) return found
              yield* Effect.sleep("100 millis")
            }
            return yield* Effect.die(new Error(`${what}: not within ${Duration.format(limit)}`))
          })
        yield* on(federationOn(onB.tenant))
        const credentials = partnerCredentials()
        const receiver = yield* webhookReceiver(credentials.signing_secret)
        yield* on(makePartner(onB.tenant, { webhookUrl: receiver.url, credentials }))
        const webhookFor = (member: number) =>
          Effect.gen(function*() {
            yield* on(
              Effect.flatMap(Outbox, (outbox) =>
                outbox.appendFor(
                  onB.tenant.id,
                  new DomainEvents.MemberFederationOptedOut({ user_id: member, changed_by: 1 })
                ))
            )
            return yield* waitFor(
              `webhook for member ${member}`,
              Effect.sync(() => receiver.received.find((r) => r.body.data["member_id"] === member))
            )
          })
        yield* waitFor("a scheduled run on B", Effect.map(lastRun, (at) => (at > 0 ? at : undefined)))
        yield* webhookFor(900_001)
        const before = yield* on(shardHolders)
        for (const id of [SCHEDULER, WEBHOOKS, String(onB.tenant.id), `${onB.tenant.id}:${events[0]!.id}`]) {
          assert.strictEqual(before.get(shardOf(id)), victim, `${id} lives on B`)
        }
        assert.strictEqual(before.get(shardOf(String(onA.tenant.id))), survivor)

        // Load through both processes: payments in both communities, RSVPs to the three events.
        const bases = () => [a.base, b.base]
        const payments = { onA: [] as Array<Payment>, onB: [] as Array<Payment> }
        let paying = true
        const payLoop = (community: typeof onA, into: Array<Payment>) =>
          Effect.forEach(community.payers, (payer, i) =>
            Effect.gen(function*() {
              for (let n = i; paying; n++) {
                into.push(yield* payment(bases, n, payer, community.payee, 0.5, Date.now() + 30_000))
              }
            }), { concurrency: "unbounded", discard: true })
        const paying$ = yield* Effect.fork(
          Effect.all([payLoop(onA, payments.onA), payLoop(onB, payments.onB)], { concurrency: 2 })
        )
        // Every member answers every event, three at a time and paced, so that RSVPs are in flight at the kill.
        const pairs = events.flatMap((event) => attendees.map((member) => ({ event, member })))
        pairs.sort(() => Math.random() - 0.5)
        const rsvping = yield* Effect.fork(Effect.forEach(pairs, ({ event, member }, i) =>
          Effect.zipLeft(rsvpGoing(bases, i, member, event.id, Date.now() + 30_000), Effect.sleep("150 millis")), {
          concurrency: 3
        }))
        yield* Effect.sleep("1500 millis")

        b.process.child.kill("SIGKILL")
        const killedAt = Date.now()
        yield* b.process.exited
        // A domain event written now reaches the partner only once the outbox publisher and the webhook worker run
        // again, on A.
        const webhookAfter = yield* Effect.fork(webhookFor(900_002))

        // Through the survivor alone: a transfer of B's Ledger and an RSVP to an event of B.
        const [probePay, probeRsvp] = yield* Effect.all([
          payment(() => [a.base], 0, onB.payers[0]!, onB.payee, 0.25, killedAt + Duration.toMillis(RECOVERY_LIMIT)),
          rsvpGoing(() => [a.base], 0, probeMember, probeEvent.id, killedAt + Duration.toMillis(RECOVERY_LIMIT))
        ], { concurrency: 2 })
        payments.onB.push(probePay)
        assert.strictEqual(outcomeOf(probePay).status, 201, JSON.stringify(outcomeOf(probePay).body))
        assert.strictEqual(outcomeOf(probeRsvp).status, 200, JSON.stringify(outcomeOf(probeRsvp).body))
        const transfersBack = outcomeOf(probePay).at - killedAt
        const rsvpsBack = outcomeOf(probeRsvp).at - killedAt
        yield* report(
          `runner killed: B's Ledger served by A after ${transfersBack} ms, B's events after ${rsvpsBack} ms`
        )
        assert.isAtMost(transfersBack, Duration.toMillis(RECOVERY_LIMIT))
        assert.isAtMost(rsvpsBack, Duration.toMillis(RECOVERY_LIMIT))

        const rsvps: ReadonlyArray<Rsvp> = yield* Fiber.join(rsvping)
        paying = false
        yield* Fiber.join(paying$)

        // The singletons moved to A: the job runs again, a new webhook is delivered.
        const jobBack = yield* waitFor(
          "a scheduled run on A",
          Effect.map(lastRun, (at) => (at > killedAt ? at : undefined))
        )
        const webhookBack = (yield* Fiber.join(webhookAfter)).at - killedAt
        const after = yield* on(shardHolders)
        for (const id of [SCHEDULER, WEBHOOKS, String(onB.tenant.id), `${onB.tenant.id}:${events[0]!.id}`]) {
          assert.strictEqual(after.get(shardOf(id)), survivor, `${id} moved to A`)
        }
        yield* report(
          `singletons on A: the job ran ${
            jobBack - killedAt
          } ms after the kill, the webhook came ${webhookBack} ms after`
        )
        const acknowledgedAfter = (list: ReadonlyArray<{ readonly attempts: ReadonlyArray<Answer> }>) =>
          list.filter((x) => outcomeOf(x).status < 300 && outcomeOf(x).at > killedAt).length
        yield* report(
          `load: ${payments.onA.length + payments.onB.length} payments (${
            acknowledgedAfter([...payments.onA, ...payments.onB])
          } acknowledged after the kill), ${rsvps.length} RSVPs (${acknowledgedAfter(rsvps)} after)`
        )

        // Payments: every acknowledged one kept once, none twice, the ledgers balance.
        for (const [community, list] of [[onA, payments.onA], [onB, payments.onB]] as const) {
          const acknowledged = yield* on(assertPaymentsKept(community.tenant.id, list))
          assert.isAbove(acknowledged, 0)
          assert.isTrue((yield* on(verifyLedger(community.tenant.id))).ok, "ledger invariant")
        }
        const lateAcks = payments.onB.filter((p) => outcomeOf(p).status === 201 && outcomeOf(p).at > killedAt)
        assert.isNotEmpty(lateAcks, "B's community was paid in after the kill")

        // RSVPs: every one answered; what was acknowledged is stored; no event overbooked; waitlists consistent.
        for (const r of rsvps) assert.strictEqual(outcomeOf(r).status, 200, JSON.stringify(outcomeOf(r).body))
        for (const event of events) {
          const stored = yield* on(rsvpsOf(event))
          const waitlist = yield* on(waitlistOf(event))
          const going = [...stored].filter(([, status]) => status === "going").map(([user]) => user)
          assert.strictEqual(going.length, PLACES, `event ${event.id} full, not overbooked`)
          assert.strictEqual(new Set(waitlist).size, waitlist.length)
          assert.strictEqual(going.length + waitlist.length, MEMBERS, "everyone going or waiting")
          for (const user of waitlist) assert.notInclude(going, user)
          for (const r of rsvps.filter((x) => x.eventId === event.id)) {
            const status = rsvpStatusOf(outcomeOf(r))
            if (status === "going") assert.include(going, r.member, "acknowledged place kept")
            else assert.include(waitlist, r.member, "acknowledged waitlist entry kept")
          }
        }
      }),
    300_000
  )
})
