import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { LedgerEntity, type Move } from "@timebank/domain"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import { dataOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import { makeEvent } from "./fixtures/events.js"
import {
  answersAtOnce,
  assertServerError,
  type Fault,
  faultMarker,
  FaultyTestApp,
  makeFaults,
  type Response,
  SLOW_WRITE,
  withRequestId
} from "./fixtures/faults.js"
import { balanceOf, countTransactions, fund, transfer, verifyLedger } from "./fixtures/ledger.js"
import { makeSignedInMembers } from "./fixtures/members.js"
import { makeTenant } from "./fixtures/tenants.js"
import { rawRequest } from "./fixtures/TestApp.js"
import { makeUser } from "./fixtures/users.js"

type Headers = Record<string, string>
type RsvpAnswer = {
  status: string
  waitlist_position?: number
  counts: { going: number; interested: number; waitlist: number }
}

const faults = makeFaults()

/** The shared community, its member Ann holding `hours`, with Bob (the other) and Cat; everyone signed in. */
const ledgerCommunity = (hours: number) =>
  Effect.map(
    community({ settings: { starting_balance: 0 }, signIn: "token", members: 1, fund: { member: hours } }),
    (c) => ({
      tenant: c.tenant,
      admin: c.admin.headers,
      ann: c.member.headers,
      bob: c.other.headers,
      cat: c.members[0]!.headers,
      annId: c.member.id,
      bobId: c.other.id,
      catId: c.members[0]!.id
    })
  )

/**
 * Sends `slow` (a request whose write the faulty layer holds for a moment), then `during` while that write is in
 * flight, so that everything in `during` queues up into the entity's next batch.
 */
const behindSlowWrite = <A, E, R>(slow: Effect.Effect<Response, never, R>, during: Effect.Effect<A, E, R>) =>
  Effect.all([slow, Effect.zipRight(Effect.sleep("100 millis"), during)], { concurrency: 2 })

const goodTransfers = (from: Headers, to: number, count: number) =>
  Array.from({ length: count }, (_, i) => transfer(from, { recipient_id: to, amount: 1, description: `good ${i}` }))

const slowTransfer = (from: Headers, to: number) =>
  transfer(from, { recipient_id: to, amount: 1, description: `warm-up ${faultMarker("slow")}` })

const batchesHolding = (description: string) =>
  faults.ledgerBatches.filter((moves) => moves.some((m) => m.description.includes(description)))

const rsvp = (headers: Headers, eventId: number, status = "going") =>
  rawRequest("POST", `/api/v2/events/${eventId}/rsvp`, { headers, body: JSON.stringify({ status }) })

const rowsOf = (eventId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rsvps = yield* sql<{ user_id: string; status: string }>`
      SELECT user_id, status FROM event_rsvps WHERE event_id = ${eventId} ORDER BY user_id`
    const waitlist = yield* sql<{ user_id: string }>`
      SELECT user_id FROM event_waitlist WHERE event_id = ${eventId} ORDER BY id`
    return {
      going: rsvps.filter((r) => r.status === "going").map((r) => Number(r.user_id)),
      others: rsvps.filter((r) => r.status !== "going").length,
      waitlist: waitlist.map((r) => Number(r.user_id))
    }
  }).pipe(Effect.orDie)

/** Holds the row of a member's account in a transaction of its own until the returned effect runs. */
const lockAccount = (tenantId: number, userId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT id FROM ledger_accounts
        WHERE tenant_id = ${tenantId} AND kind = 'member' AND owner_id = ${userId} FOR UPDATE`
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(release)
    })))
    yield* Deferred.await(locked)
    return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(holder)).pipe(Effect.orDie)
  }).pipe(Effect.orDie)

layer(FaultyTestApp(faults), { excludeTestServices: true, timeout: "180 seconds" })("entities never wedge", (it) => {
  describe("the Ledger entity", () => {
    it.effect(
      "moves PostgreSQL refuses (NUL, lone surrogate) fail alone; the moves of their batch and the next ones are written",
      () =>
        Effect.gen(function*() {
          const c = yield* ledgerCommunity(20)
          const ledger = (yield* LedgerEntity.client)(String(c.tenant.id))
          // Straight to the entity: the HTTP edge refuses such strings before any handler sees them.
          const poisoned = (description: string): Move => ({
            idempotencyKey: `poison:${randomUUID()}`,
            requestHash: randomUUID(),
            type: "transfer",
            from: { _tag: "member", userId: c.annId },
            to: { _tag: "member", userId: c.bobId },
            cents: 100,
            description,
            senderId: c.annId,
            recipientId: c.bobId,
            listingId: null,
            createdBy: c.annId
          })
          const nul = poisoned("lunch \u0000")
          const surrogate = poisoned("lunch \ud800")

          const [warmUp, [goods, poisons]] = yield* behindSlowWrite(
            slowTransfer(c.ann, c.bobId),
            Effect.all([
              Effect.all(goodTransfers(c.ann, c.bobId, 6), { concurrency: "unbounded" }),
              Effect.all([nul, surrogate].map((move) => Effect.exit(ledger.Transfer(move))), { concurrency: 2 })
            ], { concurrency: 2 })
          )

          assert.strictEqual(warmUp.status, 201, warmUp.text)
          for (const res of goods) assert.strictEqual(res.status, 201, res.text)
          for (const exit of poisons) {
            assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), `a defect, not ${String(exit)}`)
            assert.isTrue(Exit.isFailure(exit) && Option.isNone(Cause.failureOption(exit.cause)))
          }
          // They did share a batch with good moves, which was then written move by move.
          assert.isTrue(batchesHolding("lunch \u0000").some((moves) => moves.some((m) => m.description === "good 0")))

          yield* answersAtOnce(3, 201, () => transfer(c.ann, { recipient_id: c.bobId, amount: 1 }))
          assert.strictEqual(yield* balanceOf(c.ann), 20 - 1 - 6 - 3)
          assert.strictEqual(yield* balanceOf(c.bob), 1 + 6 + 3)
          assert.strictEqual(yield* countTransactions(c.tenant.id), 1 + 1 + 6 + 3)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        })
    )

    for (const fault of ["die", "throw"] satisfies Array<Fault>) {
      it.effect(`a move whose write ${fault}s answers 500 alone; the rest of its batch is written`, () =>
        Effect.gen(function*() {
          const c = yield* ledgerCommunity(20)
          const requestId = `fault-${randomUUID()}`
          const [warmUp, [before, bad, after]] = yield* behindSlowWrite(
            slowTransfer(c.ann, c.bobId),
            Effect.all([
              Effect.all(goodTransfers(c.ann, c.bobId, 3), { concurrency: "unbounded" }),
              transfer(withRequestId(c.ann, requestId), {
                recipient_id: c.bobId,
                amount: 2,
                description: `bad ${faultMarker(fault)}`
              }),
              Effect.all(goodTransfers(c.ann, c.bobId, 3), { concurrency: "unbounded" })
            ], { concurrency: "unbounded" })
          )

          assert.strictEqual(warmUp.status, 201, warmUp.text)
          for (const res of [...before, ...after]) assert.strictEqual(res.status, 201, res.text)
          assertServerError(bad, requestId)
          assert.isTrue(batchesHolding(faultMarker(fault)).some((moves) => moves.length > 1))

          yield* answersAtOnce(3, 201, () => transfer(c.ann, { recipient_id: c.bobId, amount: 1 }))
          assert.strictEqual(yield* balanceOf(c.ann), 20 - 1 - 6 - 3)
          assert.strictEqual(yield* countTransactions(c.tenant.id), 1 + 1 + 6 + 3)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))
    }

    it.effect(
      "a write that hangs is abandoned at the batch time bound; only its move fails",
      () =>
        Effect.gen(function*() {
          const c = yield* ledgerCommunity(20)
          const requestId = `hang-${randomUUID()}`
          const [warmUp, [goods, bad]] = yield* behindSlowWrite(
            slowTransfer(c.ann, c.bobId),
            Effect.all([
              Effect.all(goodTransfers(c.ann, c.bobId, 4), { concurrency: "unbounded" }),
              transfer(withRequestId(c.ann, requestId), {
                recipient_id: c.bobId,
                amount: 2,
                description: `stuck ${faultMarker("hang")}`
              })
            ], { concurrency: 2 })
          )

          assert.strictEqual(warmUp.status, 201, warmUp.text)
          for (const res of goods) assert.strictEqual(res.status, 201, res.text)
          assertServerError(bad, requestId)
          yield* answersAtOnce(3, 201, () => transfer(c.ann, { recipient_id: c.bobId, amount: 1 }))
          assert.strictEqual(yield* balanceOf(c.ann), 20 - 1 - 4 - 3)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }),
      60_000
    )

    it.effect(
      "a statement stuck behind a lock is cancelled by the statement timeout; only its move fails",
      () =>
        Effect.gen(function*() {
          const c = yield* ledgerCommunity(20)
          yield* fund(c.admin, c.catId, 5)
          // Another transaction holds Cat's account, so any batch that moves Cat's credits waits for it.
          const unlock = yield* lockAccount(c.tenant.id, c.catId)
          const requestId = `lock-${randomUUID()}`
          const [warmUp, [goods, [took, stuck]]] = yield* behindSlowWrite(
            slowTransfer(c.ann, c.bobId),
            Effect.all([
              Effect.all(goodTransfers(c.ann, c.bobId, 4), { concurrency: "unbounded" }),
              Effect.timed(transfer(withRequestId(c.cat, requestId), { recipient_id: c.bobId, amount: 1 }))
            ], { concurrency: 2 })
          )
          yield* unlock

          assert.strictEqual(warmUp.status, 201, warmUp.text)
          for (const res of goods) assert.strictEqual(res.status, 201, res.text)
          assertServerError(stuck, requestId)
          // The move first waited behind the slow warm-up (about 2.9 s), then its batch and the move alone each
          // waited 3 s for the lock before PostgreSQL cancelled the statement: about 8.9 s. Had the entity's own
          // 5 s bound on a batch stepped in instead, it would take at least 2.9 + 5 + 5 = 12.9 s.
          const waitedBehindWarmUp = Duration.toMillis(SLOW_WRITE) - 100
          assert.isAbove(Duration.toMillis(took), waitedBehindWarmUp + 3_000)
          assert.isBelow(Duration.toMillis(took), waitedBehindWarmUp + 2 * 5_000)
          yield* answersAtOnce(2, 201, () => transfer(c.cat, { recipient_id: c.bobId, amount: 1 }))
          assert.strictEqual(yield* balanceOf(c.cat), 5 - 2)
          assert.strictEqual(yield* balanceOf(c.ann), 20 - 1 - 4)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }),
      60_000
    )

    it.effect(
      "when every move of a batch is stuck, the batch gives up after a budget instead of one time bound per move",
      () =>
        Effect.gen(function*() {
          const c = yield* ledgerCommunity(20)
          const unlock = yield* lockAccount(c.tenant.id, c.annId)
          const [took, stuck] = yield* Effect.timed(
            Effect.all(goodTransfers(c.ann, c.bobId, 20), { concurrency: "unbounded" })
          )
          yield* unlock

          for (const res of stuck) assert.strictEqual(res.status, 500, res.text)
          // One statement timeout (3 s) for the first move, one for the batch the others formed, then one per move
          // until the 10 s budget is spent: about 18 s, where a time bound per move would take over a minute.
          assert.isBelow(Duration.toMillis(took), 30_000)
          yield* answersAtOnce(2, 201, () => transfer(c.ann, { recipient_id: c.bobId, amount: 1 }))
          assert.strictEqual(yield* balanceOf(c.ann), 20 - 2)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }),
      90_000
    )
  })

  describe("the Event entity", () => {
    /** An event with places for the slow member and four good ones, the bad one RSVPing among them. */
    const badRsvpAmongGood = (fault: Fault) =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant({ settings: { starting_balance: 0 } })
        const organiser = yield* makeUser(tenant)
        const [slow, bad, ...rest] = yield* makeSignedInMembers(tenant, 8)
        const good = rest.slice(0, 4)
        const later = rest.slice(4)
        const event = yield* makeEvent(organiser, { maxAttendees: 5 })
        faults.members.set(slow!.user.id, "slow")
        faults.members.set(bad!.user.id, fault)
        const requestId = `rsvp-${randomUUID()}`

        const [warmUp, [goods, badAnswer]] = yield* behindSlowWrite(
          rsvp(slow!.headers, event.id),
          Effect.all([
            Effect.all(good.map((m) => rsvp(m.headers, event.id)), { concurrency: "unbounded" }),
            rsvp(withRequestId(bad!.headers, requestId), event.id)
          ], { concurrency: 2 })
        )

        assert.strictEqual(warmUp.status, 200, warmUp.text)
        assertServerError(badAnswer, requestId)
        for (const res of goods) assert.strictEqual(res.status, 200, res.text)
        // The bad RSVP took no place: all four get one, answered with the counts of their own writes.
        const answers = goods.map((res) => dataOf<RsvpAnswer>(res.body))
        assert.deepStrictEqual(answers.map((a) => a.status), ["going", "going", "going", "going"])
        assert.deepStrictEqual(answers.map((a) => a.counts.going).sort((x, y) => x - y), [2, 3, 4, 5])
        const sharedBatch = faults.eventWrites.some((plan) =>
          plan.upsert.some(([userId]) => userId === bad!.user.id) && plan.upsert.length > 1
        )
        assert.isTrue(sharedBatch, "the bad RSVP was written together with good ones first")
        assert.deepStrictEqual(yield* rowsOf(event.id), {
          going: [slow!, ...good].map((m) => m.user.id).sort((x, y) => x - y),
          others: 0,
          waitlist: []
        })

        // The entity serves at once: the bad member, fault cleared, and another one join the waitlist of the full event.
        faults.members.delete(bad!.user.id)
        const [again] = yield* answersAtOnce(1, 200, () => rsvp(bad!.headers, event.id))
        assert.deepStrictEqual(dataOf<RsvpAnswer>(again!.body), {
          status: "waitlisted",
          waitlist_position: 1,
          counts: { going: 5, interested: 0, waitlist: 1 }
        })
        yield* answersAtOnce(1, 200, () => rsvp(later[0]!.headers, event.id))
        assert.deepStrictEqual((yield* rowsOf(event.id)).waitlist, [bad!.user.id, later[0]!.user.id])
      })

    for (const fault of ["die", "throw"] satisfies Array<Fault>) {
      it.effect(`an RSVP whose write ${fault}s answers 500 alone; the others of its batch get their places`, () =>
        badRsvpAmongGood(fault))
    }

    it.effect(
      "an RSVP whose write hangs is abandoned at the time bound; the others get their places",
      () => badRsvpAmongGood("hang"),
      60_000
    )
  })
})
